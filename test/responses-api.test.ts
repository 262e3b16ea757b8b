// The Responses API as input (docs/clients.md "Codex and the Responses API"), with the official OpenAI SDK's
// responses.create and the AI SDK's default OpenAI provider as the clients: direct mode (/api/v1/responses) against
// the provider simulator, tool mode (/v1/responses, /compat/v1/responses, /cc/v1/responses) against the fake CLI.
// Streamed and whole, a function-tool loop, a freeform tool answered as its own item kind, tools the assistant
// cannot serve left out by name, errors in the format's shapes with the codes clients act on, and one ledger row
// per answer. Chains by id: responses-chain.test.ts; the socket: responses-socket.test.ts.

import { createOpenAI } from '@ai-sdk/openai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText, jsonSchema, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { postJson, readSse, startToolBed, type ToolBed } from './helpers/tool-proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';
import type { UsageRecord } from '../src/proxy/usage/types.js';

const model = 'assistant-sonnet-4-20250514';
const fileToken = 'sk-ant-oat01-responses-file-abcdef123456';
const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] },
  strict: false,
};

type StreamEvent = OpenAI.Responses.ResponseStreamEvent;

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

describe('direct mode: POST /api/v1/responses', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let dir: string;
  const rows: UsageRecord[] = [];
  beforeAll(async () => {
    sim = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'responses-direct-'));
    const credentialsPath = await writeCliCredentials(dir, {
      accessToken: fileToken,
      refreshToken: 'sk-ant-ort01-x-abcdef123456',
      expiresAt: Date.now() + 3_600_000,
    });
    proxy = await startProxy(
      { apiBaseUrl: sim.url, credentialsPath, oauthTokenUrl: sim.cliTokenUrl, upstreamIdleTimeoutMs: 400 },
      { usage: { record: (row) => rows.push(row), upstreamHeaders: () => {}, cliRateLimit: () => {} } },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => sim.reset());
  const openai = () => new OpenAI({ apiKey: 'dummy', baseURL: `${proxy.url}/api/v1`, maxRetries: 0 });

  it('answers a string input whole, with instructions as the system prompt and usage', async () => {
    const response = await openai().responses.create({
      model,
      input: 'Hello?',
      instructions: 'Be brief.',
      max_output_tokens: 200,
      store: false,
    });
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Hi from the simulator!');
    expect(response.id).toMatch(/^resp_/);
    expect(response.model).toBe(model);
    expect(response.usage?.input_tokens).toBeGreaterThan(0);
    expect(response.usage?.output_tokens).toBeGreaterThan(0);
    expect(response.usage?.input_tokens_details.cached_tokens).toBe(0);
    const [upstream] = sim.requests('/v1/messages');
    expect(upstream.headers.authorization).toBe(`Bearer ${fileToken}`);
    expect(upstream.json).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      // A one-off: only the system prompt carries direct mode's cache mark (docs/direct-mode.md "The prompt cache").
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      max_tokens: 200,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello?' }] }],
    });
  });

  it('streams every event with its own type, ending with response.completed and usage', async () => {
    const events = await collect(
      await openai().responses.create({
        model,
        input: [
          { role: 'developer', content: 'Be brief.' },
          { role: 'user', content: 'Hello?' },
        ],
        stream: true,
      }),
    );
    const types = events.map((e) => e.type);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.at(-1)).toBe('response.completed');
    const text = events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('');
    expect(text).toBe('Hi from the simulator!');
    expect(events.filter((e) => e.type === 'response.output_text.delta').length).toBeGreaterThan(1);
    const done = events.at(-1) as OpenAI.Responses.ResponseCompletedEvent;
    expect(done.response.usage?.output_tokens).toBeGreaterThan(0);
    expect(done.response.output).toMatchObject([
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi from the simulator!' }] },
    ]);
    expect((sim.requests('/v1/messages')[0].json as { system?: unknown }).system).toEqual([
      { type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('round-trips a function-tool loop, whole and streamed', async () => {
    for (const stream of [false, true]) {
      sim.reset();
      const client = openai();
      const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
      let output: OpenAI.Responses.ResponseOutputItem[];
      if (stream) {
        const events = await collect(await client.responses.create({ model, input, tools: [weather], stream: true }));
        expect(events.some((e) => e.type === 'response.function_call_arguments.delta')).toBe(true);
        output = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response.output;
      } else {
        output = (await client.responses.create({ model, input, tools: [weather] })).output;
      }
      const call = output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
      expect(call).toMatchObject({
        type: 'function_call',
        name: 'get_weather',
        call_id: expect.stringMatching(/^toolu_/),
      });
      expect(JSON.parse(call.arguments)).toEqual({ location: 'Paris' });
      const second = await client.responses.create({
        model,
        tools: [weather],
        input: [
          ...input,
          ...output,
          { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 21 C' },
        ] as OpenAI.Responses.ResponseInput,
      });
      expect(second.output_text).toBe('The tool said: sunny, 21 C');
      const replay = sim.requests('/v1/messages')[1].json as { messages: unknown[] };
      expect(replay.messages[1]).toMatchObject({
        role: 'assistant',
        content: [{ type: 'tool_use', id: call.call_id, name: 'get_weather', input: { location: 'Paris' } }],
      });
      expect(replay.messages[2]).toMatchObject({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: call.call_id, content: 'sunny, 21 C' }],
      });
    }
  });

  it('answers a freeform tool as a custom_tool_call, and leaves out tools the assistant cannot serve, by name', async () => {
    sim.knobs.toolInput = { input: '*** Begin Patch\n*** End Patch\n' };
    const res = await postJson(`${proxy.url}/api/v1/responses`, {
      model,
      input: 'Patch it.',
      stream: true,
      tools: [
        {
          type: 'custom',
          name: 'apply_patch',
          description: 'Edit files',
          format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
        },
        { type: 'web_search', external_web_access: false },
        { type: 'namespace', name: 'multi_agent_v1', description: 'agents', tools: [] },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')).toBe('tools.web_search, tools.namespace');
    const events = (await readSse(res)).map((e) => e.data as { type: string; [k: string]: unknown });
    const done = events.find((e) => e.type === 'response.custom_tool_call_input.done');
    expect(done?.input).toBe('*** Begin Patch\n*** End Patch\n');
    const item = events.filter((e) => e.type === 'response.output_item.done').at(-1)?.item;
    expect(item).toMatchObject({
      type: 'custom_tool_call',
      name: 'apply_patch',
      input: '*** Begin Patch\n*** End Patch\n',
    });
    const upstream = sim.requests('/v1/messages')[0].json as { tools: Array<{ name: string; input_schema: unknown }> };
    expect(upstream.tools.map((t) => t.name)).toEqual(['apply_patch']);
    expect(upstream.tools[0].input_schema).toMatchObject({
      properties: { input: { type: 'string' } },
      required: ['input'],
    });
  });

  it('refuses bad input and an unknown previous_response_id with a 400 in the compatible shape, naming the field', async () => {
    const bad = await postJson(`${proxy.url}/api/v1/responses`, {
      model,
      input: [{ type: 'function_call_output', output: 'x' }],
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: {
        message: expect.stringContaining('input.0.call_id'),
        type: 'invalid_request_error',
        param: 'input.0.call_id',
        code: 'invalid_request_error',
      },
    });
    const previous = await postJson(`${proxy.url}/api/v1/responses`, {
      model,
      input: 'x',
      previous_response_id: 'resp_1',
    });
    expect(previous.status).toBe(400);
    expect(await previous.json()).toMatchObject({
      error: { param: 'previous_response_id', code: 'previous_response_not_found', type: 'invalid_request_error' },
    });
    expect(sim.requests('/v1/messages')).toHaveLength(0);
  });

  it('gives the provider refusals the codes clients act on, before and after headers', async () => {
    sim.knobs.failWith = { status: 429, retryAfter: 7 };
    const limited = await postJson(`${proxy.url}/api/v1/responses`, { model, input: 'x', stream: true });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(((await limited.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');

    sim.knobs.failWith = { status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' };
    const long = await postJson(`${proxy.url}/api/v1/responses`, { model, input: 'x' });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { code: string } }).error.code).toBe('context_length_exceeded');

    sim.knobs.failWith = undefined;
    sim.knobs.streamFault = 'error';
    const res = await postJson(`${proxy.url}/api/v1/responses`, { model, input: 'x', stream: true });
    expect(res.status).toBe(200);
    const events = (await readSse(res)).map(
      (e) => e.data as { type: string; response?: { status: string; error: { code: string } } },
    );
    const last = events.at(-1)!;
    expect(last.type).toBe('response.failed');
    expect(last.response).toMatchObject({ status: 'failed', error: { code: 'service_unavailable' } });
    expect(events.every((e) => typeof e.type === 'string')).toBe(true);
  });

  it('records each answer in the usage ledger under its route, with its tokens', async () => {
    await new Promise((r) => setTimeout(r, 100)); // rows of earlier tests are written up to 25 ms after their answer
    rows.length = 0;
    const response = await openai().responses.create({ model, input: 'Hello?' });
    for (let i = 0; i < 50 && rows.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
    expect(rows).toHaveLength(1);
    expect(response.usage?.output_tokens).toBe(rows[0].tokens.output);
    expect(rows[0]).toMatchObject({ route: '/api/v1/responses', mode: 'direct', status: 200, modelRequested: model });
    expect(rows[0].tokens.input).toBeGreaterThan(0);
    expect(rows[0].tokens.output).toBeGreaterThan(0);
  });

  it('serves the AI SDK default OpenAI provider: generateText with a tool loop, and streamText', async () => {
    const provider = createOpenAI({ apiKey: 'dummy', baseURL: `${proxy.url}/api/v1` });
    const result = await generateText({
      model: provider(model),
      prompt: 'Weather in Paris?',
      tools: {
        get_weather: tool({
          description: 'Weather for a city',
          inputSchema: jsonSchema<{ location: string }>({
            type: 'object',
            properties: { location: { type: 'string' } },
            required: ['location'],
          }),
          execute: async ({ location }) => `sunny in ${location}`,
        }),
      },
      stopWhen: stepCountIs(3),
    });
    expect(result.text).toBe('The tool said: sunny in Paris');
    expect(result.steps[0].toolCalls[0]).toMatchObject({ toolName: 'get_weather', input: { location: 'Paris' } });
    expect(result.totalUsage.inputTokens).toBeGreaterThan(0);

    const streamed = streamText({ model: provider(model), prompt: 'Hello?' });
    let text = '';
    for await (const piece of streamed.textStream) text += piece;
    expect(text).toBe('Hi from the simulator!');
    expect((await streamed.usage).outputTokens).toBeGreaterThan(0);
    expect(await streamed.finishReason).toBe('stop');
  });
});

describe('the guards every route has apply to the Responses routes', () => {
  it('asks for the access key, refuses another origin, and rate-limits, each in the compatible shape', async () => {
    const sim = await startSimulator();
    const dir = await mkdtemp(join(tmpdir(), 'responses-guards-'));
    const key = 'responses-access-key-0123456789';
    const credentialsPath = await writeCliCredentials(dir, {
      accessToken: fileToken,
      refreshToken: 'sk-ant-ort01-x-abcdef123456',
      expiresAt: Date.now() + 3_600_000,
    });
    const proxy = await startProxy({
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      accessKey: key,
      rateLimitPerMinute: 1,
      rateLimitBurst: 1,
    });
    try {
      const url = `${proxy.url}/api/v1/responses`;
      const body = { model, input: 'Hello?' };
      const anonymous = await postJson(url, body);
      expect(anonymous.status).toBe(401);
      expect(((await anonymous.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
      const page = await postJson(url, body, {
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          origin: 'https://evil.test',
          'sec-fetch-site': 'cross-site',
        },
      });
      expect(page.status).toBe(403);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await postJson(url, body, {
          headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        });
        statuses.push(res.status);
        if (res.status === 429)
          expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
        else await res.text();
      }
      expect(statuses[0]).toBe(200);
      expect(statuses).toContain(429);
      expect(sim.requests('/v1/messages').length).toBe(statuses.filter((s) => s === 200).length);
    } finally {
      await proxy.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('tool mode: POST /v1/responses, /compat/v1/responses, /cc/v1/responses', () => {
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it.each(['/v1', '/compat/v1', '/cc/v1'])('answers whole and streamed on %s/responses', async (base) => {
    const client = new OpenAI({ apiKey: 'dummy', baseURL: `${bed.url}${base}`, maxRetries: 0 });
    const whole = await client.responses.create({ model, input: 'Hello?' });
    expect(whole.status).toBe('completed');
    expect(whole.output_text.length).toBeGreaterThan(0);
    expect(whole.usage?.output_tokens).toBeGreaterThan(0);
    const events = await collect(await client.responses.create({ model, input: 'Hello?', stream: true }));
    expect(events[0].type).toBe('response.created');
    expect(events.at(-1)?.type).toBe('response.completed');
    expect(events.flatMap((e) => (e.type === 'response.output_text.delta' ? [e.delta] : [])).join('')).toBe(
      whole.output_text,
    );
  });

  it("names what the CLI cannot honour in X-Proxy-Ignored-Params, in the client's own words", async () => {
    const res = await postJson(`${bed.url}/v1/responses`, {
      model,
      input: 'Hello?',
      temperature: 0.2,
      top_p: 0.9,
      tools: [{ type: 'web_search' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')).toBe('temperature, top_p, tools.web_search');
  });

  it("hands out the client's function tool and answers from the same process once the output comes back", async () => {
    const client = new OpenAI({ apiKey: 'dummy', baseURL: `${bed.url}/v1`, maxRetries: 0 });
    const tools: OpenAI.Responses.Tool[] = [
      { ...weather, parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    ];
    const input: OpenAI.Responses.ResponseInput = [{ role: 'user', content: 'Weather in Paris?' }];
    const events = await collect(await client.responses.create({ model, input, tools, stream: true }));
    const output = (events.at(-1) as OpenAI.Responses.ResponseCompletedEvent).response.output;
    const call = output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    expect(call).toMatchObject({ name: 'get_weather', call_id: expect.stringMatching(/^toolu_fake_/) });
    expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
    const second = await client.responses.create({
      model,
      tools,
      input: [
        ...input,
        ...output,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ] as OpenAI.Responses.ResponseInput,
    });
    expect(second.output_text).toBe('The tool said: sunny');
  });

  it('answers an unknown model with a 404 in the compatible shape before any CLI starts', async () => {
    const res = await postJson(`${bed.url}/compat/v1/responses`, { model: 'no-such-model', input: 'x' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
  });
});
