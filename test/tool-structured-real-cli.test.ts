// Tool mode's JSON schemas and effort through the real assistant CLI (docs/tool-mode.md "Structured output",
// "Thinking"), pointed at the provider simulator on 127.0.0.1 (test/helpers/real-cli.ts): what the simulator receives
// for output_config.format and output_config.effort, and the answer the client gets, whole and streamed. Skipped with
// its reason when the real CLI is not installed (npm run test:setup).

import Anthropic from '@anthropic-ai/sdk';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { realCliEnv, realCliHome, realCliPath, realCliPresent } from './helpers/real-cli.js';
import { startSimulator, type Simulator } from './simulator/index.js';

const present = realCliPresent('tool-structured-real-cli.test');
// A model the CLI runs with adaptive thinking and effort (test/fixtures/cli-recordings/effort.upstream.json).
const model = 'assistant-sonnet-4-6';
const object = { city: 'Paris', temp: 21 };
const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, temp: { type: 'number' } },
  required: ['city', 'temp'],
  additionalProperties: false,
};
const knobs = { toolName: 'StructuredOutput', toolInput: object, replyText: 'Sunny and mild.' };

interface UpstreamBody {
  thinking?: { type: string };
  output_config?: { effort?: string };
  tools?: Array<{ name: string; input_schema?: unknown }>;
  messages: unknown[];
}

describe.skipIf(!present)('JSON schemas and effort through the real assistant CLI', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let home: string;
  let client: Anthropic;

  beforeAll(async () => {
    sim = await startSimulator({ knobs });
    home = await realCliHome('real-cli-structured');
    proxy = await startProxy(
      {
        cliPath: realCliPath,
        cliWorkDir: join(home, 'work'),
        modes: ['tool'],
        cliFirstTokenTimeoutMs: 60_000,
        rateLimitPerMinute: 1000,
      },
      { deps: { childEnv: realCliEnv(home, sim.url) } },
    );
    client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy', maxRetries: 0 });
  }, 60_000);

  beforeEach(() => {
    sim.reset();
  });

  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  const sent = () => sim.requests('/v1/messages').map((r) => r.json as UpstreamBody);
  const ask = { model, max_tokens: 4000, messages: [{ role: 'user' as const, content: 'Weather in Paris?' }] };

  it('offers the schema as the CLI tool and answers with the validated object as text, whole', async () => {
    const message = await client.messages.create({
      ...ask,
      output_config: { format: { type: 'json_schema', schema } },
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(message.content).toEqual([{ type: 'text', text: JSON.stringify(object) }]);
    expect(message.stop_reason).toBe('end_turn');
    const calls = sent();
    const tool = calls[0].tools?.find((t) => t.name === 'StructuredOutput');
    expect(tool?.input_schema).toEqual(schema);
  }, 120_000);

  it('streams it, with no tool call reaching the client', async () => {
    const stream = client.messages.stream({
      ...ask,
      output_config: { format: { type: 'json_schema', schema } },
    } as Anthropic.MessageStreamParams);
    const kinds: string[] = [];
    stream.on('streamEvent', (e) => {
      if (e.type === 'content_block_start') kinds.push(e.content_block.type);
    });
    const message = await stream.finalMessage();
    expect(kinds).toEqual(['text']);
    expect(JSON.parse((message.content[0] as { text: string }).text)).toEqual(object);
    expect(message.stop_reason).toBe('end_turn');
  }, 120_000);

  it("sends a client's effort low to the provider as low, with adaptive thinking when asked", async () => {
    const low = await client.messages.create({
      ...ask,
      output_config: { effort: 'low' },
    } as Anthropic.MessageCreateParamsNonStreaming);
    expect(low.content[0]).toMatchObject({ type: 'text', text: 'Sunny and mild.' });
    expect(sent().at(-1)!.output_config).toMatchObject({ effort: 'low' });
    const adaptive = await client.messages.create({
      ...ask,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'low' },
    } as unknown as Anthropic.MessageCreateParamsNonStreaming);
    expect(adaptive.content.at(-1)).toMatchObject({ type: 'text' });
    expect(sent().at(-1)).toMatchObject({ thinking: { type: 'adaptive' }, output_config: { effort: 'low' } });
  }, 120_000);

  it('answers a schema the model never meets with a 502 that says so, not with its text', async () => {
    const unmet = { type: 'object', properties: { city: { type: 'number' } }, required: ['city'] };
    const res = await fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...ask, output_config: { format: { type: 'json_schema', schema: unmet } } }),
    });
    expect(res.status).toBe(502);
    const body = JSON.stringify(await res.json());
    expect(body).toMatch(/JSON schema/);
    expect(body).not.toContain('The tool said');
    // The CLI tried more than once before it gave up.
    expect(sent().length).toBeGreaterThan(1);
  }, 120_000);
});
