// Tool mode and the model a client names (docs/clients.md "Model ids"): listed ids, provider ids, the CLI's aliases
// and MODEL_ALIASES are accepted and every answer names the model that served it; anything else is a 404
// model_not_found in the route's shape that lists what is available. Plus the rest of a first contact: GET /,
// POST /v1/messages/count_tokens in tool mode answered with the provider's count, /v1 for OpenAI-format clients.

import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cliReply, startClientBed, type ClientBed } from './bed.js';

let bed: ClientBed;
beforeAll(async () => {
  bed = await startClientBed({ modelAliases: ['gpt-4o=assistant-sonnet-4-20250514'] });
});
afterAll(async () => {
  await bed?.close();
});

const openai = (base = '/compat/v1') => new OpenAI({ baseURL: `${bed.url}${base}`, apiKey: 'dummy', maxRetries: 0 });
const native = (base = '') => new Anthropic({ baseURL: `${bed.url}${base}`, apiKey: 'dummy', maxRetries: 0 });
const messages = [{ role: 'user' as const, content: 'say hi' }];

describe('model resolution in tool mode', () => {
  it('refuses gpt-4o unless aliased: 404 model_not_found naming the available ids, before any CLI starts', async () => {
    const before = (await bed.cli.records()).length;
    const err = await openai()
      .chat.completions.create({ model: 'gpt-4-turbo', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect(err).toMatchObject({ status: 404, code: 'model_not_found' });
    expect((err as Error).message).toContain('assistant-sonnet-4-20250514');
    const nativeErr = await native()
      .messages.create({ model: 'gpt-4-turbo', max_tokens: 10, messages })
      .catch((e: unknown) => e);
    expect(nativeErr).toBeInstanceOf(Anthropic.NotFoundError);
    expect((await bed.cli.records()).length).toBe(before);
  });

  it('accepts an alias and answers with the model that served it', async () => {
    const completion = await openai().chat.completions.create({ model: 'gpt-4o', messages });
    expect(completion.choices[0].message.content).toBe(cliReply);
    expect(completion.model).toBe('assistant-sonnet-4-20250514');
    const last = (await bed.cli.records()).at(-1)!;
    expect(last.argv).toContain('claude-sonnet-4-20250514');
  });

  it("gives the CLI the exact id of the newest model of a family alias's family", async () => {
    const message = await native().messages.create({ model: 'opus', max_tokens: 100, messages });
    expect(message.content).toEqual([{ type: 'text', text: cliReply }]);
    expect((await bed.cli.records()).at(-1)!.argv).toContain('claude-opus-5-5');
    expect(message.model).toBe('assistant-opus-5-5');
  });

  it('names the served model in streams too', async () => {
    const stream = await openai().chat.completions.create({
      model: 'claude-3-5-haiku-20241022',
      messages,
      stream: true,
    });
    const models = new Set<string>();
    for await (const chunk of stream) models.add(chunk.model);
    expect([...models]).toEqual(['assistant-3-5-haiku-20241022']);
  });
});

describe('OpenAI-format clients at /v1', () => {
  it('get a 400 naming /compat/v1 when they send no max_tokens', async () => {
    const err = await openai('/v1')
      .chat.completions.create({ model: 'assistant-sonnet-4-20250514', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as Error).message).toContain('/compat/v1');
  });
});

describe('POST /v1/messages/count_tokens in tool mode', () => {
  it("answers the provider's own count, through the CLI login", async () => {
    bed.sim.reset();
    const count = await native().messages.countTokens({
      model: 'assistant-sonnet-4-20250514',
      messages: [{ role: 'user', content: 'one two three four' }],
    });
    expect(count).toEqual({ input_tokens: 4 });
    const seen = bed.sim.requests('/v1/messages/count_tokens');
    expect(seen).toHaveLength(1);
    expect(seen[0].headers.authorization).toBe('Bearer sk-ant-oat01-client-bed-token');
    expect((seen[0].json as { model: string }).model).toBe('claude-sonnet-4-20250514');
  });

  it('maps an alias to the provider id, and refuses an unknown model with 404', async () => {
    bed.sim.reset();
    // The bed's proxy has read the provider's list, whose newest sonnet the built-in list does not have.
    await bed.proxy.proxy.catalog.refresh();
    await native().messages.countTokens({ model: 'sonnet', messages });
    expect((bed.sim.requests('/v1/messages/count_tokens')[0].json as { model: string }).model).toBe(
      'claude-sonnet-4-7',
    );
    const err = await native()
      .messages.countTokens({ model: 'gpt-4-turbo', messages })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.NotFoundError);
  });
});

describe('GET /', () => {
  it('answers a plain page saying the proxy runs, with the base URLs of the modes that are on', async () => {
    const res = await fetch(`${bed.url}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text.split('\n')[0]).toBe('Assistant Proxy is running.');
    expect(text).toContain(`${bed.url}/compat/v1`);
    expect(text).toContain(`${bed.url}/api/v1`);
    expect(text).not.toContain('/respapi');
  });
});
