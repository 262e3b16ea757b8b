// What one tool-mode chat costs upstream, and how soon a follow-up turn answers (docs/tool-mode.md "Figures"): the
// real assistant CLI behind the proxy, pointed at the provider simulator, which records every body it receives.
// Prints, for one "Say hi": the bytes of the provider call's body, its tool definitions and system prompt, the
// thinking it asked for, and every other request the CLI made to the provider's address; then the time to the first
// text of a cold chat (a new process) against a follow-up turn (a live conversation), medians of ROUNDS.
//
//   REAL_ASSISTANT_CLI=<claude.exe> npx tsx bench/tool-mode-lean.ts
//   ROOT=<another checkout> ...   measures that checkout's proxy instead (e.g. the code before live conversations)
// A plain user environment is given to the CLI (PATH, HOME, the simulator's address): nothing of ours helps it.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const root = resolve(process.env.ROOT ?? join(import.meta.dirname, '..'));
const cliPath = process.env.REAL_ASSISTANT_CLI ?? join(root, '.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe');
const rounds = Number(process.env.ROUNDS ?? 5);
const load = (path: string) => import(pathToFileURL(join(root, path)).href);

const { readSse, startSimulator, writeCliCredentials } = await load('test/simulator/index.ts');
const { startProxy } = await load('test/helpers/proxy.ts');
const { createProfile } = await load('src/proxy/profile.ts');
const { configSchema } = await load('src/proxy/config.ts');
// A checkout from before live conversations has no such setting.
const liveSetting = 'cliLiveMax' in configSchema().shape ? { cliLiveMax: 4 } : {};

const model = 'assistant-sonnet-4-20250514';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Streams a native chat and returns the milliseconds to the first text delta and the whole text. */
async function timedChat(url: string, messages: unknown[]): Promise<{ ttftMs: number; text: string }> {
  const started = performance.now();
  const res = await fetch(`${url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: 64, stream: true, messages }),
  });
  if (!res.ok || !res.body) throw new Error(`chat failed: ${res.status} ${await res.text()}`);
  let ttftMs = -1;
  let text = '';
  await readSse(res, {
    onEvent: (e: { json: unknown }) => {
      const event = e.json as { type?: string; delta?: { type: string; text?: string } } | undefined;
      if (event?.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
        if (ttftMs < 0) ttftMs = performance.now() - started;
        text += event.delta.text ?? '';
      }
    },
  });
  return { ttftMs, text };
}

const sim = await startSimulator({ knobs: { replyText: 'Hello there', answerTools: false } });
const home = await mkdtemp(join(tmpdir(), 'tool-mode-lean-'));
try {
  await writeCliCredentials(join(home, '.claude'), { accessToken: 'sk-ant-oat01-bench', refreshToken: 'sk-ant-ort01-bench', expiresAt: Date.now() + 3_600_000 });
  const profile = createProfile();
  const proxy = await startProxy(
    { cliPath, cliWorkDir: join(home, 'work'), dataDir: join(home, 'data'), modes: ['tool'], rateLimitPerMinute: 100_000, cliPoolSize: 0, ...liveSetting },
    { deps: { childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, [profile.cli.baseUrlEnv]: sim.url } } },
  );
  try {
    sim.reset();
    await timedChat(proxy.url, [{ role: 'user', content: 'Say hi' }]);
    // The CLI's side requests may still be on their way after the answer.
    await new Promise((r) => setTimeout(r, 1500));
    const calls = sim.received.filter((r: { method: string; path: string }) => r.method === 'POST' && r.path.split('?')[0] === '/v1/messages');
    const main = calls[0];
    const json = main.json as { tools?: unknown[]; system?: unknown; thinking?: unknown; messages: unknown[] };
    const side = sim.received.filter((r: unknown) => r !== main);
    console.log(
      JSON.stringify(
        {
          root,
          sayHi: {
            bodyBytes: main.body.length,
            toolDefinitions: json.tools?.length ?? 0,
            toolBytes: JSON.stringify(json.tools ?? []).length,
            systemBytes: JSON.stringify(json.system ?? '').length,
            messagesBytes: JSON.stringify(json.messages).length,
            thinking: json.thinking,
            sideRequests: side.map((r: { method: string; path: string; body: Buffer }) => `${r.method} ${r.path} (${r.body.length} bytes)`),
          },
        },
        null,
        2,
      ),
    );

    const cold: number[] = [];
    const follow: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const first = [{ role: 'user', content: `Round ${i}: say hi` }];
      const a = await timedChat(proxy.url, first);
      cold.push(a.ttftMs);
      const b = await timedChat(proxy.url, [...first, { role: 'assistant', content: a.text }, { role: 'user', content: 'And again' }]);
      follow.push(b.ttftMs);
    }
    const health = (await (await fetch(`${proxy.url}/health/detailed`)).json()) as {
      components: { cli_conversations?: { continued: number; live: number; rssBytes?: number } };
    };
    const live = health.components.cli_conversations;
    console.log(
      JSON.stringify({
        rounds,
        coldTtftMs: { median: Math.round(median(cold)), all: cold.map(Math.round) },
        followUpTtftMs: { median: Math.round(median(follow)), all: follow.map(Math.round) },
        followUpOverCold: Math.round((median(follow) / median(cold)) * 100) / 100,
        continuedTurns: live?.continued ?? 'n/a (no live conversations in this checkout)',
        ...(live?.rssBytes !== undefined && live.live > 0 ? { liveProcesses: live.live, rssMbPerLiveProcess: Math.round(live.rssBytes / live.live / 2 ** 20) } : {}),
      }),
    );
  } finally {
    await proxy.close();
  }
} finally {
  await sim.close();
  await rm(home, { recursive: true, force: true });
}
