// How soon a client's tool results are answered in tool mode (docs/tool-mode.md "The client's own tools"): the real
// assistant CLI behind the proxy, pointed at the provider simulator, which answers a request carrying tools with a
// tool_use block and a request ending in tool results with text. For ROUNDS rounds: the time to the tool call (a new
// CLI process with the client's tools behind its MCP server), then the time to the first text of the answer to the
// results, once from the waiting process (resumed) and once from a fresh process (the same results after the
// waiting one was ended, as after a restart). Medians.
//
//   REAL_ASSISTANT_CLI=<claude.exe> npx tsx bench/tool-client-tools.ts

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSse, startSimulator, writeCliCredentials } from '../test/simulator/index.js';
import { startProxy } from '../test/helpers/proxy.js';
import { createProfile } from '../src/proxy/profile.js';

const cliPath = process.env.REAL_ASSISTANT_CLI ?? join(import.meta.dirname, '..', '.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
const rounds = Number(process.env.ROUNDS ?? 5);
const model = 'assistant-sonnet-4-20250514';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const tools = [{ name: 'get_weather', description: 'Weather of a city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];

/** Streams a native chat; returns ms to the first content event (text or tool_use) and the final message's blocks. */
async function timed(url: string, messages: unknown[]): Promise<{ firstMs: number; blocks: Array<Record<string, unknown>> }> {
  const started = performance.now();
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 2000, stream: true, tools, messages }),
  });
  if (!res.ok || !res.body) throw new Error(`chat failed: ${res.status} ${await res.text()}`);
  let firstMs = -1;
  const blocks: Array<Record<string, unknown>> = [];
  const json: string[] = [];
  await readSse(res, {
    onEvent: (e) => {
      const event = e.json as { type?: string; index?: number; content_block?: Record<string, unknown>; delta?: { type: string; partial_json?: string } } | undefined;
      if (event?.type === 'content_block_start' && event.content_block) {
        if (firstMs < 0) firstMs = performance.now() - started;
        blocks[event.index!] = event.content_block;
        json[event.index!] = '';
      }
      if (event?.type === 'content_block_delta' && event.delta?.type === 'input_json_delta') json[event.index!] += event.delta.partial_json ?? '';
    },
  });
  blocks.forEach((b, i) => {
    if (b.type === 'tool_use') b.input = JSON.parse(json[i] || '{}');
  });
  return { firstMs, blocks };
}

const sim = await startSimulator({ knobs: { answerTools: true, toolInput: { city: 'Paris' }, replyText: 'unused' } });
const home = await mkdtemp(join(tmpdir(), 'tool-client-tools-'));
try {
  await writeCliCredentials(join(home, '.claude'), { accessToken: 'sk-ant-oat01-bench', refreshToken: 'sk-ant-ort01-bench', expiresAt: Date.now() + 3_600_000 });
  const profile = createProfile();
  const settings = { cliPath, cliWorkDir: join(home, 'work'), dataDir: join(home, 'data'), modes: ['tool' as const], rateLimitPerMinute: 100_000, cliPoolSize: 0 };
  const deps = { deps: { childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, [profile.cli.baseUrlEnv]: sim.url } } };
  let proxy = await startProxy(settings, deps);
  const call: number[] = [];
  const resumed: number[] = [];
  const fresh: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const ask = [{ role: 'user', content: `Weather in Paris? (round ${round})` }];
      for (const how of ['resumed', 'fresh'] as const) {
        const first = await timed(proxy.url, ask);
        call.push(first.firstMs);
        const use = first.blocks.find((b) => b.type === 'tool_use')!;
        const results = [...ask, { role: 'assistant', content: first.blocks }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: use.id, content: 'sunny' }] }];
        if (how === 'fresh') {
          // A restart: the waiting process is gone, and the results reach a new proxy.
          await proxy.close();
          proxy = await startProxy(settings, deps);
        }
        const answer = await timed(proxy.url, results);
        (how === 'resumed' ? resumed : fresh).push(answer.firstMs);
      }
    }
  } finally {
    await proxy.close();
  }
  console.log(`rounds: ${rounds}`);
  console.log(`to the tool call (new process):               median ${median(call).toFixed(0)} ms`);
  console.log(`to the answer after results, waiting process: median ${median(resumed).toFixed(0)} ms`);
  console.log(`to the answer after results, fresh process:   median ${median(fresh).toFixed(0)} ms`);
  console.log(`resumed / fresh: ${(median(resumed) / median(fresh)).toFixed(2)}`);
} finally {
  await sim.close();
  await rm(home, { recursive: true, force: true });
}
