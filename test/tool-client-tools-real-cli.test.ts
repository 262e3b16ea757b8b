// A full tool loop with the client's own tools through the real assistant CLI (docs/tool-mode.md "The client's own
// tools"): the official SDKs send tools to tool mode, the real CLI offers them to the provider simulator as MCP tools
// of the proxy's per-conversation server, the simulator calls them, the client gets the calls, sends results, and
// gets the final answer from the same CLI process. Like test/tool-real-cli.test.ts, it runs when the real CLI is
// present (REAL_ASSISTANT_CLI, or the test set-up's cache) and is skipped with that reason otherwise; nothing
// reaches a real provider.

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';
import { realCliEnv, realCliPath, realCliPresent } from './helpers/real-cli.js';

const cliPath = realCliPath;
const present = realCliPresent('tool-client-tools-real-cli.test');

const model = 'assistant-sonnet-4-20250514';
/** A valid 1x1 PNG: the CLI may inspect an image before it passes it on. */
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

interface UpstreamBody {
  max_tokens?: number;
  tools?: Array<{ name: string }>;
  messages: Array<{ role: string; content: unknown }>;
}

describe.skipIf(!present)("the client's own tools through the real assistant CLI", () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let home: string;

  beforeAll(async () => {
    sim = await startSimulator({ knobs: { answerTools: true, toolInput: { city: 'Paris' }, toolCalls: 2 } });
    home = await mkdtemp(join(tmpdir(), 'real-cli-tools-'));
    const configDir = join(home, '.claude');
    await mkdir(configDir, { recursive: true });
    await writeCliCredentials(configDir, {
      accessToken: 'sk-ant-oat01-real-cli-tools',
      refreshToken: 'sk-ant-ort01-real-cli-tools',
      expiresAt: Date.now() + 3_600_000,
    });
    proxy = await startProxy(
      {
        cliPath,
        cliWorkDir: join(home, 'work'),
        modes: ['tool'],
        cliFirstTokenTimeoutMs: 60_000,
        rateLimitPerMinute: 1000,
        cliLiveMax: 4,
      },
      {
        deps: {
          childEnv: realCliEnv(home, sim.url),
        },
      },
    );
  }, 60_000);

  beforeEach(() => {
    sim.reset();
    Object.assign(sim.knobs, { answerTools: true, toolInput: { city: 'Paris' }, toolCalls: 2 });
  });

  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** The provider calls that carried the conversation (not the CLI's side requests). */
  const chatCalls = () =>
    sim
      .requests('/v1/messages')
      .map((r) => r.json as UpstreamBody)
      .filter((b) => JSON.stringify(b.messages).includes('Paris'));

  it('OpenAI SDK: two calls in one turn, results back, the final answer from the same process', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
      {
        type: 'function',
        function: {
          name: 'get_time',
          description: 'Time in a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather and time in Paris?' }];
    const first = await client.chat.completions.create({ model, messages, tools });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const calls = first.choices[0].message.tool_calls ?? [];
    expect(calls.map((c) => c.type === 'function' && c.function.name).sort()).toEqual(['get_time', 'get_weather']);
    expect(calls.every((c) => c.id.startsWith('toolu_sim_'))).toBe(true);
    expect(calls.map((c) => c.type === 'function' && JSON.parse(c.function.arguments))).toEqual([
      { city: 'Paris' },
      { city: 'Paris' },
    ]);
    // The provider saw only the client's tools, as the CLI names MCP tools, and none of the CLI's own.
    const [firstCall] = chatCalls();
    expect(firstCall.tools?.map((t) => t.name).sort()).toEqual(['mcp__c__get_time', 'mcp__c__get_weather']);

    const results = calls.map((c) => ({
      role: 'tool' as const,
      tool_call_id: c.id,
      content: c.type === 'function' && c.function.name === 'get_time' ? 'noon' : 'sunny',
    }));
    const stream = await client.chat.completions.create({
      model,
      tools,
      stream: true,
      stream_options: { include_usage: true },
      messages: [...messages, first.choices[0].message, ...results],
    });
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | undefined | null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      usage = chunk.usage ?? usage;
    }
    expect(finish).toBe('stop');
    expect(text).toMatch(/^The tool said: (sunny|noon)/);
    expect(text).toContain('sunny');
    expect(text).toContain('noon');
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    // One CLI process carried the loop: the provider got the results under its own ids, after the tool calls.
    const last = chatCalls().at(-1)!;
    const sent = JSON.stringify(last.messages);
    for (const c of calls) expect(sent).toContain(`"tool_use_id":"${c.id}"`);

    // The agent's next user turn continues the same process (a live conversation), which calls the tools again.
    const live = async () =>
      (
        (await (await fetch(`${proxy.url}/health/detailed`)).json()) as {
          components: { cli_conversations: { continued: number } };
        }
      ).components.cli_conversations;
    const before = (await live()).continued;
    const next = await client.chat.completions.create({
      model,
      tools,
      messages: [
        ...messages,
        first.choices[0].message,
        ...results,
        { role: 'assistant', content: text },
        { role: 'user', content: 'And in Paris again?' },
      ],
    });
    expect(next.choices[0].finish_reason).toBe('tool_calls');
    expect((await live()).continued).toBe(before + 1);
    // The provider got the structured history of the whole loop, the new turn last.
    expect(JSON.stringify(chatCalls().at(-1)!.messages)).toContain('And in Paris again?');
    expect(
      chatCalls()
        .at(-1)!
        .messages.filter((m) => m.role === 'user').length,
    ).toBeGreaterThanOrEqual(3);
  }, 120_000);

  it('native SDK: streamed tool_use blocks, an error result and one with an image, and the answer; all 25 tools of an agent reach the provider', async () => {
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy', maxRetries: 0 });
    const tools = Array.from({ length: 25 }, (_, i) => ({
      name: `tool_${String(i).padStart(2, '0')}`,
      description: `Tool number ${i}`,
      input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
    }));
    const messages: Anthropic.MessageParam[] = [{ role: 'user', content: 'Use a tool for Paris.' }];
    const first = await client.messages.stream({ model, max_tokens: 2000, tools, messages }).finalMessage();
    expect(first.stop_reason).toBe('tool_use');
    const uses = first.content.filter((b) => b.type === 'tool_use');
    expect(uses).toMatchObject([
      { type: 'tool_use', name: 'tool_00', input: { city: 'Paris' } },
      { type: 'tool_use', name: 'tool_01', input: { city: 'Paris' } },
    ]);
    expect(chatCalls()[0].tools?.length).toBe(25);
    const second = await client.messages.create({
      model,
      max_tokens: 2000,
      tools,
      messages: [
        ...messages,
        { role: 'assistant', content: first.content },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: uses[0].id, is_error: true, content: 'no such file' },
            {
              type: 'tool_result',
              tool_use_id: uses[1].id,
              content: [
                { type: 'text', text: 'tool output 42' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
              ],
            },
          ],
        },
      ],
    });
    expect(second.stop_reason).toBe('end_turn');
    expect(second.content[0]).toMatchObject({
      type: 'text',
      text: expect.stringMatching(/^The tool said: .*no such file.*tool output 42/s),
    });
    expect(second.usage.output_tokens).toBeGreaterThan(0);
    // The provider got each result under its id: the error flag with its text (the CLI sends an error's text only),
    // and the text and image of the other (the CLI takes MCP images).
    type Result = {
      type: string;
      tool_use_id?: string;
      is_error?: boolean;
      content?: string | Array<{ type: string; source?: { data: string } }>;
    };
    const results = (chatCalls().at(-1)!.messages.at(-1)!.content as Result[]).filter((b) => b.type === 'tool_result');
    expect(results.map((r) => r.tool_use_id)).toEqual([uses[0].id, uses[1].id]);
    expect(results[0].is_error).toBe(true);
    expect(JSON.stringify(results[0].content)).toContain('no such file');
    expect(results[1].is_error).toBeFalsy();
    expect(JSON.stringify(results[1].content)).toContain('tool output 42');
    expect(
      Array.isArray(results[1].content) && results[1].content.some((b) => b.type === 'image' && b.source?.data === png),
    ).toBe(true);
  }, 120_000);

  it('results sent with another max_tokens reach a fresh process, never the waiting one (the same conversation only)', async () => {
    Object.assign(sim.knobs, { toolCalls: 1 });
    const tools = [
      {
        name: 'get_weather',
        description: 'Weather of a city',
        input_schema: { type: 'object' as const, properties: { city: { type: 'string' } } },
      },
    ];
    const asked = {
      model,
      max_tokens: 300,
      tools,
      messages: [{ role: 'user' as const, content: 'Weather in Paris?' }],
    };
    const first = (await (
      await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(asked),
      })
    ).json()) as { stop_reason: string; content: Array<{ type: string; id?: string }> };
    expect(first.stop_reason).toBe('tool_use');
    const id = first.content.find((b) => b.type === 'tool_use')!.id!;
    const before = chatCalls().length;
    const res = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        ...asked,
        max_tokens: 4000,
        messages: [
          ...asked.messages,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'sunny' }] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const after = chatCalls().slice(before);
    // Every provider call for that answer carried the new limit: none came from the process started with 300.
    expect(after.length).toBeGreaterThan(0);
    expect(after.map((b) => b.max_tokens)).toEqual(after.map(() => 4000));
  }, 60_000);

  it("a JSON schema beside the client's own tools: their call is handed out first, the object after the results", async () => {
    const city = {
      type: 'object',
      properties: { city: { type: 'string' }, temp: { type: 'number' } },
      required: ['city', 'temp'],
    };
    Object.assign(sim.knobs, {
      toolCalls: 1,
      toolName: 'get_weather',
      finalTool: { name: 'StructuredOutput', input: { city: 'Paris', temp: 21 } },
    });
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const response_format = { type: 'json_schema' as const, json_schema: { name: 'city', schema: city } };
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris, as JSON?' }];
    const first = await client.chat.completions.create({ model, messages, tools, response_format });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const [call] = first.choices[0].message.tool_calls ?? [];
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    // The provider was offered both: the client's tool and the CLI's structured-output tool.
    expect(
      chatCalls()[0]
        .tools?.map((t) => t.name)
        .sort(),
    ).toEqual(['StructuredOutput', 'mcp__c__get_weather']);

    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny, 21 C' });
    const second = await client.chat.completions.create({ model, messages, tools, response_format });
    expect(second.choices[0].finish_reason).toBe('stop');
    expect(JSON.parse(second.choices[0].message.content ?? '')).toEqual({ city: 'Paris', temp: 21 });
    expect(second.choices[0].message.tool_calls ?? []).toEqual([]);
  }, 60_000);
});
