import { describe, expect, it } from 'vitest';
import { ConfigError } from '../config.js';
import { isProxyError } from '../errors.js';
import { createProfile } from '../profile.js';
import { createModelCatalog } from './model-catalog.js';

const profile = createProfile();

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a throw');
}

describe('createModelCatalog over the built-in fallback: what a requested model id means', () => {
  const catalog = createModelCatalog(profile);

  it("lists today's models newest first, then the older ones", () => {
    expect(catalog.ids.slice(0, 4)).toEqual([
      'assistant-opus-5-5',
      'assistant-opus-4-7',
      'assistant-sonnet-4-6',
      'assistant-opus-4-6',
    ]);
    expect(catalog.ids).toContain('assistant-3-5-haiku-20241022');
    expect(catalog.models.find((m) => m.id === 'assistant-sonnet-4-6')?.contextLength).toBe(200_000);
  });

  it('accepts a listed neutral id and passes the CLI its exact provider id', () => {
    expect(catalog.resolve('assistant-sonnet-4-6')).toEqual({
      requested: 'assistant-sonnet-4-6',
      id: 'assistant-sonnet-4-6',
      providerId: 'claude-sonnet-4-6',
      cliModel: 'claude-sonnet-4-6',
      source: 'listed',
      info: {
        id: 'assistant-sonnet-4-6',
        created: 1771286400,
        remark: 'latest',
        contextLength: 200_000,
        maxTokens: 64_000,
        capabilities: {
          thinking: ['adaptive', 'enabled'],
          efforts: ['low', 'medium', 'high', 'max'],
          structuredOutputs: true,
          imageInput: true,
          pdfInput: true,
        },
      },
    });
  });

  it("accepts today's provider ids, and a dated id's undated name", () => {
    expect(catalog.resolve('claude-opus-4-6')).toMatchObject({
      id: 'assistant-opus-4-6',
      cliModel: 'claude-opus-4-6',
      source: 'provider-id',
    });
    expect(catalog.resolve('claude-haiku-4-5')).toMatchObject({
      id: 'assistant-haiku-4-5-20251001',
      cliModel: 'claude-haiku-4-5-20251001',
      source: 'undated',
    });
    expect(catalog.resolve('assistant-haiku-4-5')).toMatchObject({
      id: 'assistant-haiku-4-5-20251001',
      source: 'undated',
    });
  });

  it('passes an older dated id to the CLI exactly, never a family alias', () => {
    expect(catalog.resolve('assistant-opus-4-20250514')).toMatchObject({
      id: 'assistant-opus-4-20250514',
      cliModel: 'claude-opus-4-20250514',
    });
    expect(catalog.resolve('claude-3-5-haiku-20241022')).toMatchObject({
      id: 'assistant-3-5-haiku-20241022',
      cliModel: 'claude-3-5-haiku-20241022',
      source: 'provider-id',
    });
  });

  it('names the replacement of a deprecated model', () => {
    expect(catalog.resolve('assistant-sonnet-4-20250514').deprecation).toBe(
      'The model assistant-sonnet-4-20250514 is deprecated (end of life 2026-06-15); use assistant-sonnet-4-6 instead',
    );
    expect(catalog.resolve('claude-3-5-haiku-20241022').deprecation).toMatch(
      /use assistant-haiku-4-5-20251001 instead$/,
    );
    expect(catalog.resolve('assistant-sonnet-4-6').deprecation).toBeUndefined();
  });

  it("maps the CLI's aliases to the newest model of the family, given to the CLI by its exact id", () => {
    expect(Object.fromEntries(catalog.aliases)).toEqual({
      sonnet: 'assistant-sonnet-4-6',
      opus: 'assistant-opus-5-5',
      haiku: 'assistant-haiku-4-5-20251001',
    });
    expect(catalog.resolve('sonnet')).toMatchObject({
      id: 'assistant-sonnet-4-6',
      providerId: 'claude-sonnet-4-6',
      cliModel: 'claude-sonnet-4-6',
      source: 'cli-alias',
    });
  });

  it('defaults to the mid-priced model, and names the smallest current one', () => {
    expect(catalog.defaultModel).toBe('assistant-sonnet-4-6');
    expect(catalog.smallestModel).toBe('assistant-haiku-4-5-20251001');
  });

  it('refuses anything else with a 404 model_not_found naming the ids and aliases', () => {
    const err = thrown(() => catalog.resolve('gpt-4o'));
    expect(isProxyError(err)).toBe(true);
    expect(err).toMatchObject({ kind: 'model_not_found', status: 404, field: 'model' });
    expect(err.message).toMatch(
      /^The model 'gpt-4o' is not available\. Available models: assistant-opus-5-5, assistant-opus-4-7, .*; aliases: sonnet, opus, haiku$/,
    );
    // A provider-shaped id of a model that is not listed is not guessed at either.
    expect(thrown(() => catalog.resolve('claude-9-giant'))).toMatchObject({ kind: 'model_not_found' });
    expect(thrown(() => catalog.resolve('Sonnet'))).toMatchObject({ kind: 'model_not_found' });
  });

  it('names served models by their neutral id', () => {
    expect(catalog.publicName('claude-sonnet-4-5-20250929')).toBe('assistant-sonnet-4-5-20250929');
    expect(catalog.publicName('assistant-sonnet-4-20250514')).toBe('assistant-sonnet-4-20250514');
    // A CLI that echoes the alias it was given names no model: the resolved id stands in.
    expect(catalog.publicName('sonnet', 'assistant-sonnet-4-6')).toBe('assistant-sonnet-4-6');
    expect(catalog.publicName('claude-opus-4-20250514', 'assistant-sonnet-4-6')).toBe('assistant-opus-4-20250514');
  });
});

describe('createModelCatalog over a live list', () => {
  const live = [
    { id: 'assistant-sonnet-4-7', created: 1_790_000_000, contextLength: 1_000_000 },
    { id: 'assistant-sonnet-4-6', created: 1771286400 },
    { id: 'assistant-haiku-4-5-20251001', created: 1759276800 },
  ];
  const catalog = createModelCatalog(profile, [], { listed: live });

  it('lists only what the provider lists, and accepts a model the built-in list does not have', () => {
    expect(catalog.ids).toEqual(['assistant-sonnet-4-7', 'assistant-sonnet-4-6', 'assistant-haiku-4-5-20251001']);
    expect(catalog.resolve('claude-sonnet-4-7')).toMatchObject({
      id: 'assistant-sonnet-4-7',
      cliModel: 'claude-sonnet-4-7',
      info: { contextLength: 1_000_000 },
    });
  });

  it('moves the family aliases and the default to the newest listed model', () => {
    expect(catalog.aliases.get('sonnet')).toBe('assistant-sonnet-4-7');
    expect(catalog.defaultModel).toBe('assistant-sonnet-4-7');
    expect(catalog.aliases.has('opus')).toBe(false);
  });

  it('still accepts the fallback ids the provider no longer lists (the provider answers for them)', () => {
    expect(catalog.resolve('assistant-opus-4-6')).toMatchObject({
      id: 'assistant-opus-4-6',
      cliModel: 'claude-opus-4-6',
    });
    expect(catalog.resolve('assistant-3-5-haiku-20241022').deprecation).toMatch(/deprecated/);
  });
});

describe('user aliases (MODEL_ALIASES)', () => {
  it("accept an alias for today's ids, a provider id or a CLI alias, and win over the same word", () => {
    const catalog = createModelCatalog(profile, [
      'gpt-4o=assistant-sonnet-4-6',
      'big=claude-opus-4-6',
      'fast=haiku',
      'sonnet=assistant-3-7-sonnet-20250219',
      'mini=claude-haiku-4-5',
    ]);
    expect(catalog.resolve('gpt-4o')).toMatchObject({
      requested: 'gpt-4o',
      id: 'assistant-sonnet-4-6',
      cliModel: 'claude-sonnet-4-6',
      source: 'user-alias',
    });
    expect(catalog.resolve('big')).toMatchObject({
      id: 'assistant-opus-4-6',
      cliModel: 'claude-opus-4-6',
      source: 'user-alias',
    });
    expect(catalog.resolve('fast')).toMatchObject({
      id: 'assistant-haiku-4-5-20251001',
      cliModel: 'claude-haiku-4-5-20251001',
      source: 'user-alias',
    });
    expect(catalog.resolve('mini')).toMatchObject({ id: 'assistant-haiku-4-5-20251001', source: 'user-alias' });
    expect(catalog.resolve('sonnet')).toMatchObject({ id: 'assistant-3-7-sonnet-20250219', source: 'user-alias' });
    expect(catalog.aliases.get('gpt-4o')).toBe('assistant-sonnet-4-6');
  });

  it('may target a model only the live list has, even before the list is read (said, not refused)', () => {
    const catalog = createModelCatalog(profile, ['gpt-4o=claude-sonnet-4-7'], {
      listed: [{ id: 'assistant-sonnet-4-7', created: 2 }],
    });
    expect(catalog.resolve('gpt-4o')).toMatchObject({ id: 'assistant-sonnet-4-7', cliModel: 'claude-sonnet-4-7' });
    const said: string[] = [];
    const early = createModelCatalog(profile, ['gpt-4o=claude-sonnet-4-7'], {
      onUnlistedAlias: (a, t) => said.push(`${a}=${t}`),
    });
    expect(said).toEqual(['gpt-4o=claude-sonnet-4-7']);
    expect(early.resolve('gpt-4o')).toMatchObject({
      id: 'assistant-sonnet-4-7',
      providerId: 'claude-sonnet-4-7',
      cliModel: 'claude-sonnet-4-7',
      source: 'user-alias',
    });
  });

  it('refuse, as a setting error naming the catalog, an alias whose target is unknown', () => {
    const err = thrown(() => createModelCatalog(profile, ['gpt-4o=gpt-5'], { describe: 'the cached provider list' }));
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.message).toMatch(
      /^Invalid setting MODEL_ALIASES: gpt-4o=gpt-5 names an unknown model \(the model catalog is the cached provider list\); use one of assistant-opus-5-5, /,
    );
    expect(err.message).toContain('docs/configuration.md "Models"');
  });

  it('are dropped, not thrown, when a later read no longer has their target', () => {
    const dropped: string[] = [];
    const catalog = createModelCatalog(profile, ['x=opus'], {
      listed: [{ id: 'assistant-sonnet-4-6', created: 1 }],
      onUnknownAlias: (a, t) => dropped.push(`${a}=${t}`),
    });
    expect(dropped).toEqual(['x=opus']);
    expect(catalog.aliases.has('x')).toBe(false);
  });

  it('follow an overridden profile list', () => {
    const own = createProfile({
      models: [
        { id: 'assistant-sonnet-5-20260101', created: 2 },
        { id: 'assistant-sonnet-4-20250514', created: 1 },
      ],
    });
    const catalog = createModelCatalog(own);
    expect(catalog.ids).toEqual(['assistant-sonnet-5-20260101', 'assistant-sonnet-4-20250514']);
    expect(Object.fromEntries(catalog.aliases)).toEqual({ sonnet: 'assistant-sonnet-5-20260101' });
  });
});
