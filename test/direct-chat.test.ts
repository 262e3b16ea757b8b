// /api/v1/chat/completions (DirectBackend) and /api/models against the provider simulator, with the official OpenAI
// SDK as the client: tool calls round-trip streaming and not, usage chunks, faithful errors (429 keeps
// Retry-After; 5xx and 529 are 503, never 429), stalls reported in the stream, client aborts reach the provider.
// A client that does not stream is answered two ways upstream (docs/direct-mode.md): a max_tokens within
// profile.api.nonStreamingMaxTokens asks for one message, a larger one streams and collects; both are tested.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const fileToken = 'sk-ant-oat01-chat-file-abcdef123456';
const model = 'assistant-sonnet-4-20250514';

let sim: Simulator;
let proxy: TestProxy;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'direct-chat-'));
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: fileToken,
    refreshToken: 'sk-ant-ort01-x-abcdef123456',
    expiresAt: Date.now() + 3_600_000,
  });
  proxy = await startProxy({
    apiBaseUrl: sim.url,
    credentialsPath,
    oauthTokenUrl: sim.cliTokenUrl,
    upstreamIdleTimeoutMs: 400,
  });
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => sim.reset());

const openai = () => new OpenAI({ apiKey: 'dummy', baseURL: `${proxy.url}/api/v1`, maxRetries: 0 });

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Weather for a city',
      parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
    },
  },
];

/** The two ways a non-streaming client's chat goes upstream: one message (the default max_tokens), or streamed. */
const upstreamWays = [
  { way: 'asked as one message', maxTokens: undefined, sentMaxTokens: 4096, stream: undefined },
  { way: 'streamed upstream and collected', maxTokens: 20_000, sentMaxTokens: 20_000, stream: true },
] as const;

describe('POST /api/v1/chat/completions with the OpenAI SDK', () => {
  it.each(upstreamWays)(
    'round-trips a tool call without streaming ($way)',
    async ({ maxTokens, sentMaxTokens, stream }) => {
      const first = await openai().chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'Weather in Paris?' },
        ],
        tools,
        max_tokens: maxTokens,
      });
      const call = first.choices[0].message.tool_calls?.[0];
      expect(first.choices[0].finish_reason).toBe('tool_calls');
      expect(call).toMatchObject({ type: 'function', function: { name: 'get_weather' } });
      expect(JSON.parse((call as { function: { arguments: string } }).function.arguments)).toEqual({
        location: 'Paris',
      });
      expect(first.model).toBe(model);
      expect(first.usage?.prompt_tokens).toBeGreaterThan(0);

      const [upstream] = sim.requests('/v1/messages');
      expect(upstream.headers.authorization).toBe(`Bearer ${fileToken}`);
      expect(upstream.headers['anthropic-beta']).toContain('oauth-2025-04-20');
      expect(upstream.json).toMatchObject({
        model: 'claude-sonnet-4-20250514',
        // The system prompt as a block, to carry direct mode's cache mark (docs/direct-mode.md "The prompt cache").
        system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
        max_tokens: sentMaxTokens,
        tools: [{ name: 'get_weather', input_schema: { type: 'object' } }],
      });
      expect((upstream.json as { stream?: boolean }).stream).toBe(stream);
      expect(upstream.headers.accept === 'text/event-stream').toBe(stream === true);

      const second = await openai().chat.completions.create({
        model,
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          first.choices[0].message as OpenAI.Chat.Completions.ChatCompletionMessageParam,
          { role: 'tool', tool_call_id: call!.id, content: 'sunny, 21 C' },
        ],
        tools,
        max_tokens: maxTokens,
      });
      expect(second.choices[0].message.content).toBe('The tool said: sunny, 21 C');
      expect(second.choices[0].finish_reason).toBe('stop');
      const replay = sim.requests('/v1/messages')[1].json as { messages: Array<{ role: string; content: unknown }> };
      expect(replay.messages[1]).toMatchObject({
        role: 'assistant',
        content: [{ type: 'tool_use', id: call!.id, name: 'get_weather', input: { location: 'Paris' } }],
      });
      expect(replay.messages[2]).toMatchObject({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call!.id }],
      });
    },
  );

  it('streams tool calls with their index, then the finish chunk and the usage chunk', async () => {
    sim.knobs.toolPreamble = 'Let me check.';
    const stream = await openai().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toBe('Let me check.');
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas.length).toBeGreaterThan(2);
    expect(toolDeltas.every((d) => d.index === 0)).toBe(true);
    expect(toolDeltas[0]).toMatchObject({
      id: expect.stringMatching(/^toolu_/),
      type: 'function',
      function: { name: 'get_weather' },
    });
    expect(JSON.parse(toolDeltas.map((d) => d.function?.arguments ?? '').join(''))).toEqual({ location: 'Paris' });
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(finish?.choices[0].finish_reason).toBe('tool_calls');
    const last = chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toMatchObject({ prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) });
    expect(last.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('the SDK stream helper assembles the streamed tool call', async () => {
    const runner = openai().chat.completions.stream({
      model,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools,
    });
    const final = await runner.finalChatCompletion();
    expect(final.choices[0].message.tool_calls?.[0]).toMatchObject({
      function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
    });
  });

  it('streams text chunk by chunk', async () => {
    sim.knobs.chunkIntervalMs = 25;
    sim.knobs.replyText = 'one two three four five';
    const res = await fetch(`${proxy.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'count' }], stream: true }),
    });
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const reads: string[] = [];
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>)
      reads.push(Buffer.from(chunk).toString('utf8'));
    expect(reads.filter((r) => r.includes('"content":"')).length).toBeGreaterThan(3);
    expect(reads.join('')).toContain('data: [DONE]');
  });

  it('translates images, stop and max_completion_tokens, and reports ignored parameters', async () => {
    const res = await openai()
      .chat.completions.create({
        model,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            ],
          },
        ],
        stop: 'END',
        max_completion_tokens: 50,
        presence_penalty: 0.5,
      })
      .withResponse();
    expect(res.response.headers.get('x-proxy-ignored-params')).toContain('presence_penalty');
    expect(sim.requests('/v1/messages')[0].json).toMatchObject({
      max_tokens: 50,
      stop_sequences: ['END'],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this?' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          ],
        },
      ],
    });
    expect(proxy.logText()).toContain('presence_penalty');
  });

  /** A streaming client, and a non-streaming one each way upstream. */
  const clientWays = [
    { way: 'streamed', stream: true, maxTokens: undefined },
    ...upstreamWays.map((w) => ({ way: `not streamed, ${w.way}`, stream: false, maxTokens: w.maxTokens })),
  ];

  it.each(clientWays)('answers a provider 429 with 429 and its Retry-After ($way)', async ({ stream, maxTokens }) => {
    sim.knobs.failWith = { status: 429, retryAfter: 9 };
    const err = await openai()
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], stream, max_tokens: maxTokens })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect((err as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('9');
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('rate_limit_exceeded');
  });

  it.each(upstreamWays.flatMap((w) => ([529, 500, 503] as const).map((status) => ({ ...w, status }))))(
    'answers a provider $status with 503, never 429 ($way)',
    async ({ status, maxTokens }) => {
      sim.knobs.failWith = { status };
      const res = await fetch(`${proxy.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ error: { code: 'service_unavailable', type: 'server_error' } });
    },
  );

  it.each(upstreamWays)(
    'passes the provider 400 message through in the compatible shape ($way)',
    async ({ maxTokens }) => {
      sim.knobs.failWith = { status: 400, message: 'max_tokens: too large for this model' };
      const err = await openai()
        .chat.completions.create({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: 'x' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.BadRequestError);
      expect((err as Error).message).toContain('max_tokens: too large for this model');
    },
  );

  it('reports a stalled stream as an error inside the stream', async () => {
    sim.knobs.streamFault = 'stall';
    sim.knobs.replyText = 'a b c d e f';
    const stream = await openai().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'x' }],
      stream: true,
    });
    const got: string[] = [];
    const err = await (async () => {
      for await (const chunk of stream) got.push(chunk.choices[0]?.delta.content ?? '');
    })().catch((e: unknown) => e);
    expect(got.join('')).not.toBe('');
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect((err as Error).message).toMatch(/stalled/);
  });

  it('reports a provider error event inside the stream faithfully', async () => {
    sim.knobs.streamFault = 'error';
    sim.knobs.replyText = 'a b c d';
    const res = await fetch(`${proxy.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x' }], stream: true }),
    });
    const text = await res.text();
    expect(text).toContain('"code":"service_unavailable"');
    // The error chunk comes last before the sentinel, as in tool mode (docs/interface.md "Streams").
    expect(text.trim().endsWith('data: [DONE]')).toBe(true);
    expect(text.indexOf('service_unavailable')).toBeLessThan(text.indexOf('[DONE]'));
  });

  it('aborts the upstream request when the client goes away', async () => {
    sim.knobs.chunkIntervalMs = 200;
    sim.knobs.replyText = 'a b c d e f g h';
    const abort = new AbortController();
    const res = await fetch(`${proxy.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'x' }], stream: true }),
      signal: abort.signal,
    });
    await res.body!.getReader().read();
    abort.abort();
    await expect.poll(() => sim.requests('/v1/messages')[0]?.aborted, { timeout: 3000 }).toBe(true);
  });

  it('answers 400 in the compatible shape for an invalid request, without calling the provider', async () => {
    const err = await openai()
      .chat.completions.create({ model, messages: [] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.APIError>).param).toBe('messages');
    expect(sim.requests('/v1/messages')).toHaveLength(0);
  });

  it('turns reasoning_effort into a thinking budget, and names the effort ignored when max_tokens leaves it no room', async () => {
    const res = await fetch(`${proxy.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        max_tokens: 2000,
        reasoning_effort: 'low',
        temperature: 0.3,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')).toBe('temperature');
    const sent = sim.requests('/v1/messages').at(-1)?.json as Record<string, unknown>;
    expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 1024 });
    expect(sent.temperature).toBeUndefined();
    const small = await fetch(`${proxy.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        max_tokens: 100,
        reasoning_effort: 'high',
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(small.status).toBe(200);
    expect(small.headers.get('x-proxy-ignored-params')).toBe('reasoning_effort');
    expect((sim.requests('/v1/messages').at(-1)?.json as Record<string, unknown>).thinking).toBeUndefined();
  });
});

describe('what served the answer (direct mode)', () => {
  // The provider answers with another model than the one it was sent: the completion and every chunk name that one,
  // as a listed id, and never the client's own name for the request (docs/direct-mode.md).
  const asked = 'assistant-opus-4-20250514';
  const served = 'assistant-opus-4-1-20250805';
  beforeEach(() => {
    sim.knobs.answerModel = 'claude-opus-4-1-20250805';
  });

  it.each(upstreamWays)('the whole completion names the served model ($way)', async ({ maxTokens }) => {
    const done = await openai().chat.completions.create({
      model: asked,
      max_tokens: maxTokens,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((sim.requests('/v1/messages').at(-1)!.json as { model: string }).model).toBe('claude-opus-4-20250514');
    expect(done.model).toBe(served);
  });

  it('every streamed chunk names the served model, the first one included', async () => {
    const stream = await openai().chat.completions.create({
      model: asked,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const models: string[] = [];
    for await (const chunk of stream) models.push(chunk.model);
    expect(models.length).toBeGreaterThan(1);
    expect(new Set(models)).toEqual(new Set([served]));
  });

  it('the Responses format names it too, whole and streamed', async () => {
    const whole = await openai().responses.create({ model: asked, input: 'hi' });
    expect(whole.model).toBe(served);
    const stream = await openai().responses.create({ model: asked, input: 'hi', stream: true });
    const models: string[] = [];
    for await (const event of stream) if ('response' in event) models.push(event.response.model);
    expect(models.length).toBeGreaterThan(1);
    expect(new Set(models)).toEqual(new Set([served]));
  });
});

describe('logs', () => {
  it('never carry the OAuth token or a client key', async () => {
    const realKey = 'sk-ant-api03-chat-real-key-0123456789';
    const keyed = new OpenAI({ apiKey: realKey, baseURL: `${proxy.url}/api/v1`, maxRetries: 0 });
    await keyed.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] });
    expect(sim.requests('/v1/messages')[0].headers['x-api-key']).toBe(realKey);
    sim.knobs.failWith = { status: 401 };
    await keyed.chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }] }).catch(() => undefined);
    sim.knobs.failWith = undefined;
    await openai()
      .chat.completions.create({ model, messages: [{ role: 'user', content: 'x' }], stream: true })
      .catch(() => undefined);
    const text = proxy.logText();
    expect(text).toContain('"route":"/api/v1/chat/completions"');
    expect(text).not.toContain(fileToken);
    expect(text).not.toContain(realKey);
  });
});

describe('GET /api/models', () => {
  it("lists the provider's models with public ids, read through the CLI login (live)", async () => {
    await proxy.proxy.catalog.refresh();
    const res = await fetch(`${proxy.url}/api/models`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-models-source')).toBe('live');
    const list = (await res.json()) as {
      object: string;
      data: Array<{ id: string; object: string; owned_by: string; created: number }>;
    };
    expect(list.object).toBe('list');
    expect(list.data.map((m) => m.id)).toContain('assistant-sonnet-4-6');
    // A model the provider lists and the built-in list does not have.
    expect(list.data.map((m) => m.id)).toContain('assistant-sonnet-4-7');
    expect(list.data[0]).toMatchObject({ object: 'model', owned_by: 'anthropic', created: expect.any(Number) });
    expect(sim.requests('/v1/models')[0].headers.authorization).toBe(`Bearer ${fileToken}`);
  });

  it('falls back to the built-in list, marked as such, when the provider cannot be asked', async () => {
    const p = await startProxy({
      apiBaseUrl: sim.url,
      credentialsPath: join(dir, 'missing.json'),
      oauthTokenUrl: sim.cliTokenUrl,
    });
    try {
      await p.proxy.catalog.refresh();
      const res = await fetch(`${p.url}/api/models`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-proxy-models-source')).toBe('fallback');
      const list = (await res.json()) as { data: Array<{ id: string }> };
      expect(list.data.map((m) => m.id)).toContain('assistant-opus-4-6');
      expect(list.data.map((m) => m.id)).not.toContain('assistant-sonnet-4-7');
    } finally {
      await p.close();
    }
  });
});
