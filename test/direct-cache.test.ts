// Direct mode's translated routes read their history from the provider's cache (docs/direct-mode.md "The prompt
// cache"), against the simulator, which bills the provider's caching rules and refuses what it refuses
// (test/simulator/prompt-cache.ts, refusals.ts). Real clients, as users run them: the openai SDK on chat completions
// and on Responses (over HTTP, as Codex sends its whole input; chained by previous_response_id), the socket chained as
// Codex chains it, and the ollama client on the Ollama listener. Each request from the third on must read at least 95 %
// of the previous request's prompt; the usage each client sees must be what the provider billed. The native route
// stays the client's own request: its four marks pass as sent.

import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startDirectBed } from './helpers/direct-bed.js';
import type { TestProxy } from './helpers/proxy.js';
import { Client } from './helpers/responses-socket-client.js';
import { startSimulator, type CacheUsage, type Simulator } from './simulator/index.js';
import type { UsageRecord } from '../src/proxy/usage/types.js';

const model = 'assistant-sonnet-4-6';
/** A 12 KB system prompt, as coding agents send. */
const system = Array.from({ length: 320 }, (_, i) => `Rule ${i}: keep the change small and tested.`).join('\n');
const turnText = (i: number) =>
  `Turn ${i}. ` + Array.from({ length: 60 }, (_, k) => `note${i}_${k} about the design`).join(', ');
const tools: OpenAI.Chat.Completions.ChatCompletionFunctionTool[] = Array.from({ length: 8 }, (_, i) => ({
  type: 'function',
  function: {
    name: `tool_${i}`,
    description: `Tool number ${i} of the agent, reading and writing files in the workspace`,
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
}));

let sim: Simulator;
let proxy: TestProxy;
let bed: Awaited<ReturnType<typeof startDirectBed>>;
const rows: UsageRecord[] = [];

beforeAll(async () => {
  sim = await startSimulator();
  bed = await startDirectBed(
    sim,
    'direct-cache',
    { ollamaPort: 0, ollamaMode: 'direct' },
    { usage: { record: (row) => rows.push(row), upstreamHeaders: () => {}, cliRateLimit: () => {} } },
  );
  proxy = bed.proxy;
});

afterAll(async () => {
  await bed?.close();
  await sim?.close();
});

beforeEach(() => {
  sim.reset();
  sim.knobs.answerTools = false;
  rows.length = 0;
});

const prompt = (b: CacheUsage) => b.input_tokens + b.cache_creation_input_tokens + b.cache_read_input_tokens;

/** What the provider billed each chat so far, in order. */
function bills(): CacheUsage[] {
  return sim.requests('/v1/messages').map((r) => {
    expect(r.answeredStatus, JSON.stringify(r.json).slice(0, 200)).toBe(200);
    return r.billed!;
  });
}

/** Each request from the third on read at least 95 % of the previous one's prompt. */
function expectReadsHistory(billed: CacheUsage[]): void {
  for (let i = 2; i < billed.length; i++)
    expect(billed[i].cache_read_input_tokens, `request ${i + 1}`).toBeGreaterThanOrEqual(0.95 * prompt(billed[i - 1]));
}

const openai = (path: string) => new OpenAI({ apiKey: 'dummy', baseURL: `${proxy.url}${path}`, maxRetries: 0 });

describe('direct mode reads each turn from the cache', () => {
  it('chat completions: an 8-turn chat with a 12 KB system prompt and 8 tools, streamed with usage', async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
    const seen: OpenAI.Completions.CompletionUsage[] = [];
    for (let i = 0; i < 8; i++) {
      messages.push({ role: 'user', content: turnText(i) });
      const stream = await openai('/api/v1').chat.completions.create({
        model,
        messages,
        tools,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) seen.push(chunk.usage);
      }
      messages.push({ role: 'assistant', content: text });
    }
    const billed = bills();
    expect(billed).toHaveLength(8);
    expectReadsHistory(billed);
    // What the client is told is what the provider billed.
    expect(seen.map((u) => [u.prompt_tokens, u.prompt_tokens_details?.cached_tokens])).toEqual(
      billed.map((b) => [prompt(b), b.cache_read_input_tokens]),
    );
    // And the ledger keeps the same counts, per request.
    await expect.poll(() => rows.length).toBe(8);
    expect(rows.map((r) => [r.tokens.cacheRead, r.tokens.cacheWrite])).toEqual(
      billed.map((b) => [b.cache_read_input_tokens, b.cache_creation_input_tokens]),
    );
  });

  it('chat completions: an agent loop whose every step makes 12 parallel tool calls', async () => {
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'system', content: system },
      { role: 'user', content: 'Fix the failing tests.' },
    ];
    for (let step = 0; step < 5; step++) {
      const answer = await openai('/api/v1').chat.completions.create({ model, messages, tools });
      const usage = answer.usage!;
      const calls = Array.from({ length: 12 }, (_, k) => ({
        id: `call_${step}_${k}`,
        type: 'function' as const,
        function: { name: `tool_${k % 8}`, arguments: JSON.stringify({ path: `src/file_${step}_${k}.ts` }) },
      }));
      expect(usage.prompt_tokens).toBeGreaterThan(0);
      messages.push({ role: 'assistant', content: 'Reading the files.', tool_calls: calls });
      for (const call of calls)
        messages.push({
          role: 'tool',
          tool_call_id: call.id,
          content: `contents of ${call.function.arguments} `.repeat(8),
        });
    }
    expectReadsHistory(bills());
  });

  it('Responses over HTTP, the whole input each turn as Codex sends it (store: false, streamed)', async () => {
    const input: OpenAI.Responses.ResponseInput = [];
    const usages: OpenAI.Responses.ResponseUsage[] = [];
    for (let i = 0; i < 6; i++) {
      input.push({ role: 'user', content: turnText(i) });
      const stream = await openai('/api/v1').responses.create({
        model,
        instructions: system,
        input,
        store: false,
        stream: true,
        tools: tools.map((t) => ({
          type: 'function' as const,
          name: t.function.name,
          description: t.function.description ?? null,
          parameters: t.function.parameters ?? null,
          strict: false,
        })),
      });
      let text = '';
      for await (const event of stream) {
        if (event.type === 'response.output_text.delta') text += event.delta;
        if (event.type === 'response.completed') usages.push(event.response.usage!);
      }
      input.push({ role: 'assistant', content: text });
    }
    const billed = bills();
    expectReadsHistory(billed);
    expect(usages.map((u) => [u.input_tokens, u.input_tokens_details.cached_tokens])).toEqual(
      billed.map((b) => [prompt(b), b.cache_read_input_tokens]),
    );
  });

  it('Responses chained by previous_response_id over HTTP', async () => {
    let previous: string | undefined;
    for (let i = 0; i < 6; i++) {
      const answer = await openai('/api/v1').responses.create({
        model,
        instructions: system,
        input: turnText(i),
        ...(previous ? { previous_response_id: previous } : {}),
      });
      previous = answer.id;
    }
    const billed = bills();
    expect(billed).toHaveLength(6);
    expectReadsHistory(billed);
  });

  it("Responses chained on Codex's socket", async () => {
    const client = await Client.open(`${proxy.url}/api/v1/responses`, {}, model);
    let previous: string | undefined;
    try {
      for (let i = 0; i < 6; i++) {
        const frames = await client.create({
          instructions: system,
          input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: turnText(i) }] }],
          store: false,
          ...(previous ? { previous_response_id: previous } : {}),
        });
        const done = frames.at(-1)!;
        expect(done.type).toBe('response.completed');
        previous = done.response!.id;
      }
    } finally {
      client.close();
    }
    expectReadsHistory(bills());
  });

  it("the Ollama listener's /api/chat, its counts including what was read", async () => {
    const status = proxy.proxy.ollama();
    if (status.state !== 'listening') throw new Error(status.state);
    const ollama = new Ollama({ host: status.url });
    const messages: Array<{ role: string; content: string }> = [{ role: 'system', content: system }];
    const counts: number[] = [];
    for (let i = 0; i < 6; i++) {
      messages.push({ role: 'user', content: turnText(i) });
      const answer = await ollama.chat({ model, messages, stream: false });
      counts.push(answer.prompt_eval_count);
      messages.push({ role: 'assistant', content: answer.message.content });
    }
    const billed = bills();
    expectReadsHistory(billed);
    expect(counts).toEqual(billed.map(prompt));
  });
});

describe('what the proxy leaves as the client sent it', () => {
  it('passes a native request with its own four marks, unrefused and unchanged', async () => {
    const mark = { type: 'ephemeral' };
    const body = {
      model,
      max_tokens: 200,
      system: [{ type: 'text', text: system, cache_control: mark }],
      tools: tools.map((t, i) => ({
        name: t.function.name,
        description: t.function.description,
        input_schema: t.function.parameters,
        ...(i === 7 ? { cache_control: mark } : {}),
      })),
      messages: [
        { role: 'user', content: [{ type: 'text', text: turnText(0), cache_control: mark }] },
        { role: 'assistant', content: 'Noted.' },
        { role: 'user', content: [{ type: 'text', text: turnText(1), cache_control: mark }] },
      ],
    };
    const res = await fetch(`${proxy.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify(body),
    });
    expect(res.status).toBe(200);
    const [sent] = sim.requests('/v1/messages');
    // The model id is mapped to the provider's; nothing else is touched.
    expect(sent.json).toEqual({ ...body, model: 'claude-sonnet-4-6' });
  });

  it("keeps a compatible client's own marks on content parts, and adds its own only within the limit of four", async () => {
    const mark = { type: 'ephemeral' };
    const part = (text: string) => ({ type: 'text', text, cache_control: mark });
    const res = await fetch(`${proxy.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model,
        tools,
        messages: [
          { role: 'system', content: [part(system)] },
          { role: 'user', content: [part(turnText(0))] },
          { role: 'assistant', content: 'Noted.' },
          { role: 'user', content: [part(turnText(1))] },
          { role: 'assistant', content: 'Noted again.' },
          { role: 'user', content: [part(turnText(2))] },
        ],
      }),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    const [sent] = sim.requests('/v1/messages');
    const json = JSON.stringify(sent.json);
    expect(json.split('"cache_control"').length - 1).toBe(4);
    const body = sent.json as { system: Array<{ cache_control?: unknown }>; messages: Array<{ content: unknown }> };
    expect(body.system[0].cache_control).toEqual(mark);
    for (const m of [0, 2, 4]) expect(JSON.stringify(body.messages[m].content)).toContain('cache_control');
  });

  it('sends no marks of its own when DIRECT_PROMPT_CACHE is off', async () => {
    const offBed = await startDirectBed(sim, 'direct-cache-off', { directPromptCache: 'off' });
    const off = offBed.proxy;
    try {
      const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
      for (let i = 0; i < 3; i++) {
        messages.push({ role: 'user', content: turnText(i) });
        const answer = await new OpenAI({
          apiKey: 'dummy',
          baseURL: `${off.url}/api/v1`,
          maxRetries: 0,
        }).chat.completions.create({ model, messages, tools });
        messages.push({ role: 'assistant', content: answer.choices[0].message.content ?? '' });
      }
    } finally {
      await offBed.close();
    }
    expect(sim.requests('/v1/messages').every((r) => !JSON.stringify(r.json).includes('cache_control'))).toBe(true);
    expect(bills().every((b) => b.cache_read_input_tokens === 0)).toBe(true);
  });
});
