// Model lists and models.retrieve with the official SDKs (docs/interface.md "Models"): neutral ids everywhere, aliases
// answered with the model they stand for, and an unknown id a 404 in the route family's error shape
// ("Compatible errors", "Native errors").

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from '../helpers/proxy.js';

let proxy: TestProxy;
beforeAll(async () => {
  proxy = await startProxy({ modelAliases: ['gpt-4o=assistant-sonnet-4-20250514'], modes: ['tool', 'direct'] });
});
afterAll(async () => {
  await proxy?.close();
});

const sonnet = 'assistant-sonnet-4-20250514';

describe('OpenAI SDK models.retrieve and models.list', () => {
  for (const base of ['/v1', '/compat/v1', '/cc/v1']) {
    it(`retrieves a listed model at ${base}`, async () => {
      const client = new OpenAI({ baseURL: `${proxy.url}${base}`, apiKey: 'dummy', maxRetries: 0 });
      const model = await client.models.retrieve(sonnet);
      expect(model).toMatchObject({ id: sonnet, object: 'model', created: 1747180800, owned_by: 'anthropic' });
      const ids = [];
      for await (const m of client.models.list()) ids.push(m.id);
      expect(ids).toContain(sonnet);
      expect(ids.every((id) => id.startsWith('assistant-'))).toBe(true);
    });
  }

  it('answers an alias with the model it stands for, and a provider id with its neutral id', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    expect((await client.models.retrieve('gpt-4o')).id).toBe(sonnet);
    expect((await client.models.retrieve('opus')).id).toBe('assistant-opus-5-5');
    expect((await client.models.retrieve('claude-haiku-4-5')).id).toBe('assistant-haiku-4-5-20251001');
    expect((await client.models.retrieve('claude-3-5-haiku-20241022')).id).toBe('assistant-3-5-haiku-20241022');
  });

  it('raises NotFoundError with code model_not_found naming the available ids', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const err = await client.models.retrieve('gpt-5-turbo').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'model_not_found', param: 'model' });
    expect((err as Error).message).toContain(sonnet);
    expect((err as Error).message).toContain('gpt-4o');
  });
});

describe('native SDK models.retrieve', () => {
  for (const base of ['', '/api']) {
    it(`retrieves a model at ${base || '/'}v1/models/{id} with the native fields`, async () => {
      const client = new Anthropic({ baseURL: `${proxy.url}${base}`, apiKey: 'dummy', maxRetries: 0 });
      const model = await client.models.retrieve(sonnet);
      expect(model).toMatchObject({
        id: sonnet,
        type: 'model',
        display_name: sonnet,
        created_at: '2025-05-14T00:00:00.000Z',
      });
    });

    it(`raises NotFoundError in the native shape at ${base || '/'}v1/models/{id}`, async () => {
      const client = new Anthropic({ baseURL: `${proxy.url}${base}`, apiKey: 'dummy', maxRetries: 0 });
      const err = await client.models.retrieve('gpt-5-turbo').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.NotFoundError);
      expect((err as InstanceType<typeof Anthropic.NotFoundError>).error).toMatchObject({
        type: 'error',
        error: { type: 'not_found_error', details: { field: 'model' } },
      });
    });
  }

  it('lists the catalog (here the built-in list: no login) as one page, newest first', async () => {
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy', maxRetries: 0 });
    const ids = [];
    for await (const m of client.models.list()) ids.push(m.id);
    expect(ids.slice(0, 3)).toEqual(['assistant-opus-5-5', 'assistant-opus-4-7', 'assistant-sonnet-4-6']);
    expect(ids).toContain(sonnet);
    expect(ids).toHaveLength(14);
  });
});

describe("the list's objects say what each model takes, as health and the window do", () => {
  it("carries capabilities in the provider's shape, max_tokens and the input window, on every list", async () => {
    for (const path of ['/v1/models', '/api/v1/models']) {
      const list = (await (await fetch(`${proxy.url}${path}`)).json()) as {
        data: Array<{ id: string; max_tokens?: number; max_input_tokens?: number; capabilities?: Record<string, any> }>;
      };
      const byId = Object.fromEntries(list.data.map((m) => [m.id, m]));
      expect(byId['assistant-sonnet-4-6']).toMatchObject({
        max_input_tokens: expect.any(Number),
        max_tokens: expect.any(Number),
        capabilities: {
          thinking: { supported: true, types: { adaptive: { supported: true }, enabled: { supported: true } } },
          structured_outputs: { supported: true },
          image_input: { supported: true },
          pdf_input: { supported: true },
        },
      });
      // The June 2024 model reads no PDF, which a client can learn before it sends one.
      expect(byId['assistant-3-5-sonnet-20240620'].capabilities?.pdf_input).toEqual({ supported: false });
      expect(byId['assistant-3-5-sonnet-20240620'].capabilities?.thinking.supported).toBe(false);
      expect(list.data.every((m) => m.capabilities !== undefined)).toBe(true);
    }
  });
});
