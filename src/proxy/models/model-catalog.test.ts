import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config.js';
import { isProxyError } from '../errors.js';
import { createProfile } from '../profile.js';
import { createModelCatalog } from './model-catalog.js';

const profile = createProfile();

function notFound(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('createModelCatalog: what a requested model id means', () => {
  const catalog = createModelCatalog(profile);

  it('accepts a listed neutral id', () => {
    expect(catalog.resolve('assistant-opus-4-20250514')).toEqual({
      requested: 'assistant-opus-4-20250514',
      id: 'assistant-opus-4-20250514',
      providerId: 'claude-opus-4-20250514',
      cliModel: 'claude-opus-4-20250514',
      source: 'listed',
      info: { id: 'assistant-opus-4-20250514', created: 1747180800, remark: 'most capable' },
    });
  });

  it("accepts the provider's own id of a listed model", () => {
    expect(catalog.resolve('claude-3-5-haiku-20241022')).toMatchObject({
      id: 'assistant-3-5-haiku-20241022',
      providerId: 'claude-3-5-haiku-20241022',
      cliModel: 'claude-3-5-haiku-20241022',
      source: 'provider-id',
    });
  });

  it("maps the CLI's aliases to the newest listed model of the family, and passes the alias itself to the CLI", () => {
    expect(Object.fromEntries(catalog.aliases)).toEqual({
      sonnet: 'assistant-sonnet-4-20250514',
      opus: 'assistant-opus-4-20250514',
      haiku: 'assistant-3-5-haiku-20241022',
    });
    expect(catalog.resolve('sonnet')).toMatchObject({ id: 'assistant-sonnet-4-20250514', providerId: 'claude-sonnet-4-20250514', cliModel: 'sonnet', source: 'cli-alias' });
  });

  it('refuses anything else with a 404 model_not_found naming the ids and aliases', () => {
    const err = notFound(() => catalog.resolve('gpt-4o'));
    expect(isProxyError(err)).toBe(true);
    expect(err).toMatchObject({ kind: 'model_not_found', status: 404, field: 'model' });
    expect(err.message).toBe(
      "The model 'gpt-4o' is not available. Available models: assistant-opus-4-20250514, assistant-sonnet-4-20250514, " +
        'assistant-3-7-sonnet-20250219, assistant-3-5-sonnet-20241022, assistant-3-5-sonnet-20240620, assistant-3-5-haiku-20241022; ' +
        'aliases: sonnet, opus, haiku',
    );
    // A provider-shaped id of a model that is not listed is not guessed at either.
    expect(notFound(() => catalog.resolve('claude-9-giant'))).toMatchObject({ kind: 'model_not_found' });
    expect(notFound(() => catalog.resolve('Sonnet'))).toMatchObject({ kind: 'model_not_found' });
  });

  it('names served models by their neutral id', () => {
    expect(catalog.publicName('claude-sonnet-4-5-20250929')).toBe('assistant-sonnet-4-5-20250929');
    expect(catalog.publicName('assistant-sonnet-4-20250514')).toBe('assistant-sonnet-4-20250514');
    // A CLI that echoes the alias it was given names no model: the resolved id stands in.
    expect(catalog.publicName('sonnet', 'assistant-sonnet-4-20250514')).toBe('assistant-sonnet-4-20250514');
    expect(catalog.publicName('claude-opus-4-20250514', 'assistant-sonnet-4-20250514')).toBe('assistant-opus-4-20250514');
  });
});

describe('user aliases (MODEL_ALIASES)', () => {
  it('accept an alias for a listed id, a provider id or a CLI alias, and win over the same word', () => {
    const catalog = createModelCatalog(profile, ['gpt-4o=assistant-sonnet-4-20250514', 'big=claude-opus-4-20250514', 'fast=haiku', 'sonnet=assistant-3-7-sonnet-20250219']);
    expect(catalog.resolve('gpt-4o')).toMatchObject({ requested: 'gpt-4o', id: 'assistant-sonnet-4-20250514', cliModel: 'claude-sonnet-4-20250514', source: 'user-alias' });
    expect(catalog.resolve('big')).toMatchObject({ id: 'assistant-opus-4-20250514', cliModel: 'claude-opus-4-20250514', source: 'user-alias' });
    expect(catalog.resolve('fast')).toMatchObject({ id: 'assistant-3-5-haiku-20241022', cliModel: 'haiku', source: 'user-alias' });
    expect(catalog.resolve('sonnet')).toMatchObject({ id: 'assistant-3-7-sonnet-20250219', source: 'user-alias' });
    expect(catalog.aliases.get('gpt-4o')).toBe('assistant-sonnet-4-20250514');
  });

  it('refuse, as a setting error, an alias whose target is unknown', () => {
    const err = notFound(() => createModelCatalog(profile, ['gpt-4o=gpt-5']));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(/^Invalid setting MODEL_ALIASES: gpt-4o=gpt-5 names an unknown model; use one of assistant-opus-4-20250514, /);
  });

  it('follow an overridden profile list', () => {
    const own = createProfile({ models: [{ id: 'assistant-sonnet-5-20260101', created: 2 }, { id: 'assistant-sonnet-4-20250514', created: 1 }] });
    const catalog = createModelCatalog(own);
    expect(catalog.ids).toEqual(['assistant-sonnet-5-20260101', 'assistant-sonnet-4-20250514']);
    expect(Object.fromEntries(catalog.aliases)).toEqual({ sonnet: 'assistant-sonnet-5-20260101' });
  });
});
