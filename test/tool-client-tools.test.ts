// The client's own tools in tool mode (docs/tool-mode.md "The client's own tools"), through the fake CLI acting as an
// MCP client (test/fixtures/fake-cli-mcp.mjs): the official SDKs send tools, get the CLI's tool calls under their own
// names and the provider's ids, send results back, and get what the CLI says next from the same process; the edges
// (a client that never comes back, results no conversation waits for, a client that leaves, tools the CLI cannot
// offer) each get their test.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { postJson, readSse, startToolBed, waitFor, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const weather = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
};
const time = {
  type: 'function' as const,
  function: {
    name: 'get_time',
    description: 'Time in a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};
const nativeTools = [
  {
    name: 'get_weather',
    description: 'Weather of a city',
    input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
  },
  {
    name: 'get_time',
    description: 'Time in a city',
    input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
  },
];

/** The native request that answers the first turn's get_weather call with "sunny". */
const resultsFor = (first: { content: Array<{ id: string }> }) => ({
  model,
  max_tokens: 50,
  tools: nativeTools,
  messages: [
    { role: 'user', content: 'weather?' },
    { role: 'assistant', content: first.content },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: first.content[0].id, content: 'sunny' }] },
  ],
});

interface McpLogEntry {
  pid: number;
  at: string;
  id?: string;
  name?: string;
  names?: string[];
  isError?: boolean;
  content?: Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
}

async function mcpLog(file: string): Promise<McpLogEntry[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as McpLogEntry);
}

/** A native chat offering the client's tools (`nativeTools`), with `extra` fields such as tool_choice. */
function toolChat(bed: ToolBed, messages: unknown[], extra: Record<string, unknown> = {}) {
  return postJson(`${bed.url}/v1/messages`, { model, max_tokens: 50, tools: nativeTools, messages, ...extra });
}

/** Invocation records of chats (print mode), leaving out the health probe's --version and auth status. */
async function chats(bed: ToolBed) {
  return await bed.cli.chatRecords();
}

/** The CLI children alive and the conversations waiting for tool results, as /health/detailed shows them. */
async function cliCounts(bed: ToolBed): Promise<{ children: number; waiting: number }> {
  const body = (await (await fetch(`${bed.url}/health/detailed`)).json()) as Record<string, any>;
  const find = (o: unknown): { children: number; waitingForTools: number } | undefined => {
    if (!o || typeof o !== 'object') return undefined;
    const rec = o as Record<string, unknown>;
    if (rec.cli_children) return rec.cli_children as { children: number; waitingForTools: number };
    for (const v of Object.values(rec)) {
      const found = find(v);
      if (found) return found;
    }
    return undefined;
  };
  const c = find(body);
  if (!c) throw new Error('no cli_children in /health/detailed');
  return { children: c.children, waiting: c.waitingForTools };
}

describe("the client's tools through the CLI (compatible format, OpenAI SDK)", () => {
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '2' } });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('hands out several calls in one turn, then answers from the same process once the results come back', async () => {
    const client = new OpenAI({ baseURL: `${bed.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await client.chat.completions.create({ model, messages, tools: [weather, time] });
    const choice = first.choices[0];
    expect(choice.finish_reason).toBe('tool_calls');
    const calls = choice.message.tool_calls ?? [];
    expect(calls.map((c) => c.type === 'function' && c.function.name)).toEqual(['get_weather', 'get_time']);
    for (const call of calls) {
      expect(call.id).toMatch(/^toolu_fake_/);
      expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'Paris' });
    }
    expect(first.usage?.completion_tokens).toBeGreaterThan(0);

    // What the CLI was given: built-ins off, only this conversation's MCP config, the client's tools allowed.
    const [record] = await chats(bed);
    const argv = record.argv;
    expect(argv[argv.indexOf('--tools') + 1]).toBe('');
    expect(argv).toContain('--strict-mcp-config');
    // The whole per-conversation server is allowed by its fixed name: no client tool name on the command line.
    expect(argv[argv.indexOf('--allowedTools') + 1]).toBe('mcp__c');
    expect(argv.join(' ')).not.toMatch(/get_weather|get_time/);
    const configFile = argv[argv.indexOf('--mcp-config') + 1];
    const config = JSON.parse(await readFile(configFile, 'utf8')) as {
      mcpServers: { c: { url: string; headers: Record<string, string> } };
    };
    expect(config.mcpServers.c.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const secret = config.mcpServers.c.headers.Authorization;
    expect(secret).toMatch(/^Bearer .{40,}$/);
    expect(argv.join(' ')).not.toContain(secret.slice(7));
    expect((await stat(configFile)).mode & 0o777).toBe(0o600);
    // In the data directory, never a shared temporary one.
    expect(configFile.startsWith(join(bed.dataDir, 'cli-mcp'))).toBe(true);
    expect((await stat(join(bed.dataDir, 'cli-mcp'))).mode & 0o777).toBe(0o700);
    // Reachable only with the secret.
    const anonymous = await postJson(config.mcpServers.c.url, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(anonymous.status).toBe(401);

    const second = await client.chat.completions.create({
      model,
      tools: [weather, time],
      messages: [
        ...messages,
        choice.message,
        { role: 'tool', tool_call_id: calls[0].id, content: 'sunny' },
        { role: 'tool', tool_call_id: calls[1].id, content: '14:00' },
      ],
    });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(second.choices[0].message.content).toBe('The tool said: sunny | 14:00');
    // Usage of this answer only: the final provider call (the fake's calls differ by 10 input tokens each).
    expect((second.usage?.prompt_tokens ?? 0) - (first.usage?.prompt_tokens ?? 0)).toBe(10);
    expect(second.usage?.completion_tokens).toBe(6);
    expect(await chats(bed)).toHaveLength(1);
    // The conversation ends with its process: the config file and its secret are gone.
    expect(
      await waitFor(
        async () =>
          !(await stat(configFile).then(
            () => true,
            () => false,
          )),
      ),
    ).toBe(true);
  });

  it('streams the calls as indexed tool_calls chunks with finish_reason tool_calls', async () => {
    const res = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      stream: true,
      tools: [weather, time],
      messages: [{ role: 'user', content: 'weather?' }],
    });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    const chunks = events
      .filter((e) => e.data !== '[DONE]')
      .map(
        (e) =>
          e.data as {
            choices: Array<{
              delta: {
                tool_calls?: Array<{ index: number; id?: string; function?: { name?: string; arguments?: string } }>;
              };
              finish_reason: string | null;
            }>;
          },
      );
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.filter((d) => d.id).map((d) => [d.index, d.function?.name])).toEqual([
      [0, 'get_weather'],
      [1, 'get_time'],
    ]);
    for (const index of [0, 1]) {
      const args = deltas
        .filter((d) => d.index === index)
        .map((d) => d.function?.arguments ?? '')
        .join('');
      expect(JSON.parse(args)).toEqual({ city: 'Paris' });
    }
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('tool_calls');
    expect(events.at(-1)?.data).toBe('[DONE]');
  });

  it('answers the legacy functions form with function_call, streamed or not; its result continues in a fresh process', async () => {
    const ask = {
      model,
      functions: [weather.function],
      function_call: 'auto',
      messages: [{ role: 'user', content: 'weather?' }],
    };
    const waitingBefore = (await cliCounts(bed)).waiting;
    const res = await postJson(`${bed.url}/compat/v1/chat/completions`, ask);
    expect(res.status).toBe(200);
    // Its result could never reach this CLI (the legacy form has no ids): the CLI ends instead of waiting.
    expect((await cliCounts(bed)).waiting).toBe(waitingBefore);
    const body = (await res.json()) as {
      choices: Array<{
        finish_reason: string;
        message: { tool_calls?: unknown; function_call: { name: string; arguments: string } };
      }>;
    };
    expect(body.choices[0].finish_reason).toBe('function_call');
    expect(body.choices[0].message.tool_calls).toBeUndefined();
    expect(body.choices[0].message.function_call.name).toBe('get_weather');
    expect(JSON.parse(body.choices[0].message.function_call.arguments)).toEqual({ city: 'Paris' });

    const streamed = await readSse(await postJson(`${bed.url}/compat/v1/chat/completions`, { ...ask, stream: true }));
    const deltas = streamed
      .filter((e) => e.data !== '[DONE]')
      .map(
        (e) =>
          (
            e.data as {
              choices: Array<{
                delta: { function_call?: { name?: string; arguments: string }; tool_calls?: unknown };
                finish_reason: string | null;
              }>;
            }
          ).choices[0],
      );
    expect(deltas.some((d) => d.delta.tool_calls)).toBe(false);
    expect(deltas.find((d) => d.delta.function_call?.name)?.delta.function_call?.name).toBe('get_weather');
    expect(JSON.parse(deltas.map((d) => d.delta.function_call?.arguments ?? '').join(''))).toEqual({ city: 'Paris' });
    expect(deltas.at(-1)?.finish_reason).toBe('function_call');

    const before = (await chats(bed)).length;
    const result = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      ...ask,
      messages: [
        ...ask.messages,
        { role: 'assistant', content: null, function_call: body.choices[0].message.function_call },
        { role: 'function', name: 'get_weather', content: 'sunny' },
      ],
    });
    expect(
      ((await result.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content,
    ).toBe('Answered from the transcript.');
    const records = await chats(bed);
    expect(records).toHaveLength(before + 1);
    expect(records.at(-1)!.prompt).toContain('[tool result for call_legacy_1: sunny]');
  });
});

describe("the client's tools through the CLI (native format, native SDK)", () => {
  let bed: ToolBed;
  let logDir: string;
  let log: string;
  beforeAll(async () => {
    logDir = await mkdtemp(join(tmpdir(), 'mcp-log-'));
    log = join(logDir, 'mcp.log');
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '2', FAKE_CLI_MCP_LOG: log } });
  });
  afterAll(async () => {
    await bed?.close();
    await rm(logDir, { recursive: true, force: true });
  });

  it('streams tool_use blocks with input_json_delta and stop_reason tool_use; results with an error flag and an image reach the MCP calls', async () => {
    const client = new Anthropic({ baseURL: bed.url, apiKey: 'dummy', maxRetries: 0 });
    const stream = client.messages.stream({
      model,
      max_tokens: 200,
      tools: nativeTools,
      messages: [{ role: 'user', content: 'weather and time?' }],
    });
    const jsonDeltas: string[] = [];
    stream.on('inputJson', (delta) => jsonDeltas.push(delta));
    const first = await stream.finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const uses = first.content.filter((b) => b.type === 'tool_use');
    expect(uses.map((b) => b.name)).toEqual(['get_weather', 'get_time']);
    expect(uses.map((b) => b.input)).toEqual([{ city: 'Paris' }, { city: 'Paris' }]);
    expect(jsonDeltas.length).toBeGreaterThanOrEqual(4);

    const png = Buffer.from('fake png').toString('base64');
    const second = await client.messages.create({
      model,
      max_tokens: 200,
      tools: nativeTools,
      messages: [
        { role: 'user', content: 'weather and time?' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: uses[0].id, content: 'no weather service', is_error: true },
            {
              type: 'tool_result',
              tool_use_id: uses[1].id,
              content: [
                { type: 'text', text: 'noon' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              ],
            },
          ],
        },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content).toEqual([{ type: 'text', text: 'The tool said: error: no weather service | noon[image]' }]);
    const results = (await mcpLog(log)).filter((e) => e.at === 'result');
    expect(results[0]).toMatchObject({
      id: uses[0].id,
      isError: true,
      content: [{ type: 'text', text: 'no weather service' }],
    });
    expect(results[1]).toMatchObject({
      id: uses[1].id,
      isError: false,
      content: [
        { type: 'text', text: 'noon' },
        { type: 'image', data: png, mimeType: 'image/png' },
      ],
    });
    expect(new Set(results.map((r) => r.pid)).size).toBe(1);
  });

  it('a result the CLI cannot take (an image URL) is a 400, and the CLI still waits for a usable one', async () => {
    const first = (await (await toolChat(bed, [{ role: 'user', content: 'look' }])).json()) as {
      content: Array<{ type: 'tool_use'; id: string; name: string; input: unknown }>;
    };
    const [a, b] = first.content;
    const withResult = (content: unknown) => ({
      model,
      max_tokens: 50,
      tools: nativeTools,
      messages: [
        { role: 'user', content: 'look' },
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: a.id, content: 'ok' },
            { type: 'tool_result', tool_use_id: b.id, content },
          ],
        },
      ],
    });
    const refused = await postJson(
      `${bed.url}/v1/messages`,
      withResult([{ type: 'image', source: { type: 'url', url: 'https://example.invalid/a.png' } }]),
    );
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { details: { field: string } } }).error.details.field).toBe(
      'messages.2.content.1.content.0',
    );
    const answered = await postJson(`${bed.url}/v1/messages`, withResult('fine'));
    expect(((await answered.json()) as { content: unknown[] }).content).toEqual([
      { type: 'text', text: 'The tool said: ok | fine' },
    ]);
    const pids = new Set((await mcpLog(log)).filter((e) => e.id === a.id || e.id === b.id).map((e) => e.pid));
    expect(pids.size).toBe(1);
  });

  it('names disable_parallel_tool_use as ignored: the CLI cannot forbid parallel calls', async () => {
    const res = await toolChat(bed, [{ role: 'user', content: 'hi' }], {
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')).toBe('tool_choice.disable_parallel_tool_use');
  });

  it('tool_choice none offers no tools; any adds an instruction; a named tool is the only one offered', async () => {
    const none = await toolChat(bed, [{ role: 'user', content: 'hi' }], { tool_choice: { type: 'none' } });
    expect(((await none.json()) as { content: unknown[] }).content).toEqual([{ type: 'text', text: 'Hi from fake!' }]);
    const any = await toolChat(bed, [{ role: 'user', content: 'hi' }], { tool_choice: { type: 'any' } });
    expect(((await any.json()) as { stop_reason: string }).stop_reason).toBe('tool_use');
    const named = await toolChat(bed, [{ role: 'user', content: 'hi' }], {
      tool_choice: { type: 'tool', name: 'get_time' },
    });
    const namedBody = (await named.json()) as { content: Array<{ name: string }> };
    expect(namedBody.content.map((b) => b.name)).toEqual(['get_time', 'get_time']);
    const records = (await chats(bed)).slice(-3);
    const [noneArgs, anyArgs, namedArgs] = records.map((r) => r.argv);
    // tool_choice none: a plain chat, with isolation's empty MCP config and no tool allowed.
    expect(noneArgs[noneArgs.indexOf('--mcp-config') + 1]).toBe('{"mcpServers":{}}');
    expect(noneArgs).not.toContain('--allowedTools');
    // The instruction goes into the system prompt file, never the command line (it names the client's tool).
    expect(records[1].systemPrompt).toMatch(/calling one or more of the available tools/);
    expect(namedArgs[namedArgs.indexOf('--allowedTools') + 1]).toBe('mcp__c');
    expect(records[2].systemPrompt).toContain('mcp__c__get_time');
    for (const args of [anyArgs, namedArgs]) {
      expect(args).not.toContain('--append-system-prompt');
      expect(args.join(' ')).not.toContain('get_time');
    }
  });
});

describe('a loop of several rounds', () => {
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1', FAKE_CLI_TOOL_ROUNDS: '3' } }, { cliLiveMax: 4 });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it("each round's results bring the next calls from the same process, until the final answer", async () => {
    const client = new OpenAI({ baseURL: `${bed.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Look three times.' }];
    const ids: string[] = [];
    for (let round = 1; round <= 3; round++) {
      const answer = await client.chat.completions.create({ model, messages, tools: [weather] });
      expect(answer.choices[0].finish_reason).toBe('tool_calls');
      const [call] = answer.choices[0].message.tool_calls ?? [];
      ids.push(call.id);
      messages.push(answer.choices[0].message, { role: 'tool', tool_call_id: call.id, content: `look ${round}` });
    }
    const done = await client.chat.completions.create({ model, messages, tools: [weather] });
    expect(done.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { content: 'The tool said: look 1 | look 2 | look 3' },
    });
    expect(new Set(ids).size).toBe(3);
    expect(await chats(bed)).toHaveLength(1);

    // The loop finished: the process is kept as a live conversation, and the agent's next user turn continues it
    // (only that turn is written to it; its tools are called through the same MCP server).
    messages.push(done.choices[0].message, { role: 'user', content: 'And once more.' });
    const next = await client.chat.completions.create({ model, messages, tools: [weather] });
    expect(next.choices[0].finish_reason).toBe('tool_calls');
    const records = await chats(bed);
    expect(records).toHaveLength(1);
    expect(records[0].turns).toEqual([expect.stringContaining('Look three times.'), 'And once more.']);
  });
});

describe('edges of a tool loop', () => {
  let bed: ToolBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });

  it('a client that never comes back: the CLI ends at the deadline, and a late result starts a fresh process with the transcript', async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } }, { cliToolResultTimeoutMs: 1000 });
    const first = (await (await toolChat(bed, [{ role: 'user', content: 'weather?' }])).json()) as {
      content: Array<{ id: string; name: string; input: unknown; type: 'tool_use' }>;
    };
    const [record] = await chats(bed);
    expect(await cliCounts(bed)).toEqual({ children: 1, waiting: 1 });
    const gone = async () => {
      const c = await cliCounts(bed!);
      return c.children === 0 && c.waiting === 0;
    };
    expect(await waitFor(gone, 5000)).toBe(true);
    expect(await bed.cli.alivePids()).not.toContain(record.pid);

    const late = await postJson(`${bed.url}/v1/messages`, resultsFor(first));
    expect(late.status).toBe(200);
    expect(((await late.json()) as { content: unknown[] }).content).toEqual([
      { type: 'text', text: 'Answered from the transcript.' },
    ]);
    const records = await chats(bed);
    expect(records).toHaveLength(2);
    expect(records[1].prompt).toContain(
      `[tool call get_weather (id ${first.content[0].id}) with input {"city":"Paris"}]`,
    );
    expect(records[1].prompt).toContain(`[tool result for ${first.content[0].id}: sunny]`);
  });

  it('results reach a waiting CLI only from the same conversation: another model, max_tokens, system prompt, tool list, an edited or whitespace-edited earlier message, or a forged history start fresh', async () => {
    const logDir = await mkdtemp(join(tmpdir(), 'mcp-same-'));
    const log = join(logDir, 'mcp.log');
    bed = await startToolBed(
      { env: { FAKE_CLI_TOOL_CALLS: '1', FAKE_CLI_MCP_LOG: log } },
      { cliToolResultTimeoutMs: 60_000 },
    );
    const ask = {
      model,
      max_tokens: 50,
      tools: nativeTools,
      messages: [{ role: 'user', content: 'weather in  Paris?' }],
    };
    const first = (await (await postJson(`${bed.url}/v1/messages`, ask)).json()) as {
      content: Array<{ id: string; name: string; input: unknown; type: 'tool_use' }>;
    };
    const [waiting] = await chats(bed);
    const results = (over: Record<string, unknown>, firstMessage: unknown = ask.messages[0]) => ({
      ...ask,
      messages: [
        firstMessage,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: first.content[0].id, content: 'sunny' }] },
      ],
      ...over,
    });
    const variants = [
      results({ model: 'assistant-opus-4-20250514' }),
      results({ max_tokens: 4000 }),
      results({ system: 'You are terse.' }),
      results({ tools: nativeTools.slice(0, 1) }),
      results({}, { role: 'user', content: 'weather in Paris?' }),
      results({}, { role: 'user', content: 'weather in Rome?' }),
    ];
    for (const body of variants) {
      const res = await postJson(`${bed.url}/v1/messages`, body);
      expect(res.status).toBe(200);
    }
    // None of those reached the waiting process; each was a fresh one with the whole conversation.
    const toWaiting = (await mcpLog(log)).filter((e) => e.at === 'result' && e.pid === waiting.pid);
    expect(toWaiting).toEqual([]);
    const records = await chats(bed);
    expect(records).toHaveLength(1 + variants.length);
    expect(records.slice(1).map((r) => r.argv[r.argv.indexOf('--model') + 1])[0]).toBe('claude-opus-4-20250514');
    expect(await cliCounts(bed)).toMatchObject({ waiting: 1 });
    // The conversation itself still continues in its waiting process.
    const same = await postJson(`${bed.url}/v1/messages`, results({}));
    expect(same.status).toBe(200);
    expect((await mcpLog(log)).filter((e) => e.at === 'result' && e.pid === waiting.pid)).toHaveLength(1);
    await rm(logDir, { recursive: true, force: true });
  });

  it('a tool result holding an image does not refuse the later user turns the same process continues', async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } }, { cliLiveMax: 4 });
    const png = Buffer.from('fake png').toString('base64');
    const asked = { model, max_tokens: 50, tools: nativeTools, messages: [{ role: 'user', content: 'look' }] };
    const first = (await (await postJson(`${bed.url}/v1/messages`, asked)).json()) as {
      content: Array<{ id: string; type: string }>;
    };
    const withImage = [
      ...asked.messages,
      { role: 'assistant', content: first.content },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: first.content[0].id,
            content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } }],
          },
        ],
      },
    ];
    const second = (await (await postJson(`${bed.url}/v1/messages`, { ...asked, messages: withImage })).json()) as {
      content: unknown[];
    };
    const next = await postJson(`${bed.url}/v1/messages`, {
      ...asked,
      messages: [...withImage, { role: 'assistant', content: second.content }, { role: 'user', content: 'thanks' }],
    });
    expect(next.status, await next.clone().text()).toBe(200);
    const records = await chats(bed);
    expect(records).toHaveLength(1);
    expect(records[0].turns.at(-1)).toBe('thanks');
  });

  it('MCP configs a killed proxy left behind are swept at the next start; the server refuses a foreign Host', async () => {
    const leftover = await mkdtemp(join(tmpdir(), 'mcp-sweep-'));
    const dataDir = join(leftover, 'data');
    // A proxy that no longer runs (pid far above any real one) left its directory with a secret in it.
    const dead = join(dataDir, 'cli-mcp', String(2 ** 22 + 777));
    await mkdir(dead, { recursive: true, mode: 0o700 });
    await writeFile(join(dead, 'old.json'), '{"secret":"s"}', { mode: 0o600 });
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } }, { dataDir });
    expect(existsSync(dead)).toBe(false);
    await toolChat(bed, [{ role: 'user', content: 'weather?' }]);
    const [record] = await chats(bed);
    const configFile = record.argv[record.argv.indexOf('--mcp-config') + 1];
    const config = JSON.parse(await readFile(configFile, 'utf8')) as {
      mcpServers: { c: { url: string; headers: Record<string, string> } };
    };
    const url = new URL(config.mcpServers.c.url);
    // A web page reaching the port through DNS rebinding sends its own Host: refused even with the secret.
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { host: 'evil.example', 'content-type': 'application/json', ...config.mcpServers.c.headers },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    });
    expect(status).toBe(403);
    await bed.close();
    bed = undefined;
    expect(existsSync(configFile)).toBe(false);
    await rm(leftover, { recursive: true, force: true });
  });

  it('a result for an id no conversation waits for (after a restart) starts a fresh process with the transcript', async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } });
    const client = new OpenAI({ baseURL: `${bed.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const done = await client.chat.completions.create({
      model,
      tools: [weather],
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_from_before',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_from_before', content: 'snow' },
      ],
    });
    expect(done.choices[0]).toMatchObject({
      finish_reason: 'stop',
      message: { content: 'Answered from the transcript.' },
    });
    const [record] = await chats(bed);
    expect(record.prompt).toContain('[tool result for call_from_before: snow]');
  });

  describe('a waiting process that died before the results came (docs/tool-mode.md "Live conversations")', () => {
    const lost = async (b: ToolBed) =>
      (
        (await (await fetch(`${b.url}/health/detailed`)).json()) as {
          components: { cli_conversations: { lost: number; live: number } };
        }
      ).components.cli_conversations;

    it('killed while it waited: the results go to a fresh process with the transcript', async () => {
      bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } }, { cliLiveMax: 4 });
      const first = (await (await toolChat(bed, [{ role: 'user', content: 'weather?' }])).json()) as {
        content: Array<{ id: string; type: string }>;
      };
      expect(first.content[0].type).toBe('tool_use');
      const [record] = await chats(bed);
      expect(await cliCounts(bed)).toEqual({ children: 1, waiting: 1 });
      process.kill(record.pid, 'SIGKILL');
      expect(await waitFor(async () => (await cliCounts(bed!)).waiting === 0, 5000)).toBe(true);
      const res = await postJson(`${bed.url}/v1/messages`, resultsFor(first));
      expect(res.status).toBe(200);
      expect(((await res.json()) as { content: unknown[] }).content).toEqual([
        { type: 'text', text: 'Answered from the transcript.' },
      ]);
      const records = await chats(bed);
      expect(records).toHaveLength(2);
      expect(records[1].prompt).toContain(`[tool result for ${first.content[0].id}: sunny]`);
    });

    it('dying as the results reach it, before it printed anything: a fresh process with the transcript answers, once', async () => {
      bed = await startToolBed(
        { env: { FAKE_CLI_TOOL_CALLS: '1', FAKE_CLI_DIE_ON_TOOL_RESULT: '1' } },
        { cliLiveMax: 4 },
      );
      const first = (await (await toolChat(bed, [{ role: 'user', content: 'weather?' }])).json()) as {
        content: Array<{ id: string; type: string }>;
      };
      expect(first.content[0].type).toBe('tool_use');
      const res = await postJson(`${bed.url}/v1/messages`, { ...resultsFor(first), stream: true });
      expect(res.status).toBe(200);
      const events = await readSse(res);
      expect(events.map((e) => e.event)).not.toContain('error');
      const text = events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => (e.data as { delta: { text?: string } }).delta.text ?? '')
        .join('');
      expect(text).toBe('Answered from the transcript.');
      const records = await chats(bed);
      expect(records).toHaveLength(2);
      expect(records[1].prompt).toContain(`[tool result for ${first.content[0].id}: sunny]`);
      expect(await lost(bed)).toMatchObject({ lost: 1, live: 1 });
      expect(bed.proxy.logs().find((l) => String(l.msg).includes('had died'))).toMatchObject({
        requestId: expect.any(String),
        pid: records[0].pid,
      });
    });
  });

  it('a client that leaves while the answer to its results streams ends the CLI; nothing waits', async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1', FAKE_CLI_TOKEN_DELAY_MS: '2000' } });
    const controller = new AbortController();
    const res = await postJson(
      `${bed.url}/v1/messages`,
      { model, max_tokens: 50, stream: true, tools: nativeTools, messages: [{ role: 'user', content: 'weather?' }] },
      { signal: controller.signal },
    );
    const events = await readSse(res);
    const use = (
      events.find((e) => (e.data as { type?: string }).type === 'content_block_start')?.data as {
        content_block: { id: string };
      }
    ).content_block;
    expect((await cliCounts(bed)).waiting).toBe(1);
    // The results come back, and the client leaves while the answer streams (a token every 2 s).
    const second = await postJson(
      `${bed.url}/v1/messages`,
      {
        model,
        max_tokens: 50,
        stream: true,
        tools: nativeTools,
        messages: [
          { role: 'user', content: 'weather?' },
          {
            role: 'assistant',
            content: [{ type: 'tool_use', id: use.id, name: 'get_weather', input: { city: 'Paris' } }],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] },
        ],
      },
      { signal: controller.signal },
    );
    const reader = second.body!.getReader();
    await reader.read();
    controller.abort();
    const gone = async () => {
      const c = await cliCounts(bed!);
      return c.children === 0 && c.waiting === 0;
    };
    expect(await waitFor(gone, 5000)).toBe(true);
    expect(await bed.cli.alivePids()).toEqual([]);
  });

  it('a client that leaves while the tool calls stream ends the CLI; nothing waits', async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1', FAKE_CLI_TOOL_DELAY_MS: '1500' } });
    const controller = new AbortController();
    const res = await postJson(
      `${bed.url}/v1/messages`,
      { model, max_tokens: 50, stream: true, tools: nativeTools, messages: [{ role: 'user', content: 'weather?' }] },
      { signal: controller.signal },
    );
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('content_block_start')) seen += new TextDecoder().decode((await reader.read()).value);
    expect(seen).toContain('"name":"get_weather"');
    controller.abort();
    const gone = async () => {
      const c = await cliCounts(bed!);
      return c.children === 0 && c.waiting === 0;
    };
    expect(await waitFor(gone, 5000)).toBe(true);
    expect(await bed.cli.alivePids()).toEqual([]);
  });

  it('results that cannot get a CLI slot (a full queue) are refused before the CLI gets them, and it waits for the retry', async () => {
    const logDir = await mkdtemp(join(tmpdir(), 'mcp-slot-'));
    const log = join(logDir, 'mcp.log');
    bed = await startToolBed(
      { env: { FAKE_CLI_TOOL_CALLS: '1', FAKE_CLI_TOKEN_DELAY_MS: '1500', FAKE_CLI_MCP_LOG: log } },
      { cliMaxConcurrent: 1, cliQueueSize: 0 },
    );
    const first = (await (await toolChat(bed, [{ role: 'user', content: 'weather?' }])).json()) as {
      content: Array<{ type: 'tool_use'; id: string; name: string; input: unknown }>;
    };
    const [toolCli] = await chats(bed);
    // Another chat takes the only slot for a few seconds.
    const busy = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const refused = await postJson(`${bed.url}/v1/messages`, resultsFor(first));
    expect(refused.status).toBe(429);
    // The CLI never saw the results, so it made no provider call for an answer nobody could read.
    expect((await mcpLog(log)).filter((e) => e.at === 'result')).toEqual([]);
    await readSse(busy);
    expect((await bed.cli.alivePids()).includes(toolCli.pid)).toBe(true);
    expect((await cliCounts(bed)).waiting).toBe(1);
    // The busy chat's slot frees as its turn is put away, a moment after its last event.
    let retriedRes = await postJson(`${bed.url}/v1/messages`, resultsFor(first));
    for (let i = 0; i < 50 && retriedRes.status === 429; i++) {
      await new Promise((r) => setTimeout(r, 100));
      retriedRes = await postJson(`${bed.url}/v1/messages`, resultsFor(first));
    }
    const retried = (await retriedRes.json()) as { content: Array<{ text?: string }> };
    expect(retried).toMatchObject({ content: expect.any(Array) });
    expect(retried.content[0].text).toMatch(/sunny/);
    expect(new Set((await mcpLog(log)).filter((e) => e.at === 'result').map((e) => e.pid))).toEqual(
      new Set([toolCli.pid]),
    );
    await rm(logDir, { recursive: true, force: true });
  });

  it("tools the provider runs itself and tool names the CLI cannot take are a 400 in the route's shape", async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } });
    const native = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 50,
      tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 3 }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(native.status).toBe(400);
    const nativeBody = (await native.json()) as {
      error: { type: string; message: string; details: { field: string } };
    };
    expect(nativeBody.error).toMatchObject({ type: 'invalid_request_error', details: { field: 'tools.0.type' } });
    expect(nativeBody.error.message).toMatch(/web_search_20250305.*provider runs itself.*\/api\/v1\/messages/);

    const compat = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      tools: [{ type: 'web_search' }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(compat.status).toBe(400);
    expect(((await compat.json()) as { error: { code: string; param: string } }).error).toMatchObject({
      code: 'invalid_request_error',
      param: 'tools.0.type',
    });

    const long = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 50,
      tools: [{ name: 'x'.repeat(60), input_schema: { type: 'object' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(long.status).toBe(400);
    expect(((await long.json()) as { error: { message: string } }).error.message).toMatch(/at most 56/);
    const dotted = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      tools: [{ type: 'function', function: { name: 'files.read' } }],
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(dotted.status).toBe(400);
    expect(((await dotted.json()) as { error: { param: string; message: string } }).error).toMatchObject({
      param: 'tools.0.name',
      message: expect.stringMatching(/letters, digits, _ and -/),
    });
    expect(await chats(bed)).toHaveLength(0);
  });
});
