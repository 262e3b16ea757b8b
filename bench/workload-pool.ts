// (p) The warm CLI pool through the proxy (docs/performance.md "Warm CLI pool"; docs/benchmarks.md "What is
// measured"). Each request waits a gap first, as a user's think time would; for the real CLI it is longer than its
// 3 s wait for a text prompt, so a warm process must outlive it.

import { mkdir } from 'node:fs/promises';
import { Agent } from 'node:http';
import { join } from 'node:path';
import { makeFakeCli } from '../test/fixtures/fake-cli.js';
import { startCliRunner, type CliRunner } from './cli.js';
import { baseKnobs, cliAloneEnv, nativeRequest, neutralModel, prompt, providerModel, type Bench } from './context.js';
import { inTempDir, realCli, withProxy, type RealCli } from './context.js';
import { summarize } from './load.js';
import { pairRow } from './report.js';
import { sleep } from './servers.js';
import { ttftOnce } from './stream-probe.js';

/** `env`: what the CLI needs beyond the proxy's own environment (the real one: its base URL, the simulator's). */
interface CliUnderTest extends RealCli {
  label: string;
  requests: number;
  gapMs: number;
}

export interface PoolRaw {
  coldMs: number[];
  pooledMs: number[];
  offMs: number[];
  /** RSS of the warm CLI processes (bytes) as /health/detailed reported before each pooled request. */
  idleRss: number[];
  errors: { pooled: number; off: number; cold: number };
  /** The pool's own count of requests that took a warm process, and of those that found none. */
  hits: number;
  misses: number;
  firstError?: string;
}

/** What /health/detailed says of the pool (components.cli_pool). */
type PoolView = Partial<Record<'warm' | 'rssBytes' | 'hits' | 'misses', number>>;

async function poolView(base: string): Promise<PoolView> {
  const body = (await (await fetch(`${base}/health/detailed`)).json()) as { components?: { cli_pool?: PoolView } };
  return body.components?.cli_pool ?? {};
}

/** One proxy with the given pool size: `requests` streamed chats, each after `gapMs`; `between` runs after each. */
async function viaProxy(b: Bench, cli: CliUnderTest, poolSize: number, raw: PoolRaw, between?: () => Promise<void>) {
  // Each request is a new conversation whose process stays live for a follow-up. Under the default CLI_LIVE_MAX (4)
  // those fill the cap after three requests, and the pool then yields by design (it never ends a live conversation
  // for a warm process: docs/tool-mode.md "Live conversations", cli_pool.skippedForCap): the row would measure the cap,
  // not the pool.
  const env = { ...cli.env, CLI_POOL_SIZE: String(poolSize), CLI_LIVE_MAX: String(cli.requests + 2) };
  return withProxy(b, { cliPath: cli.cliPath, home: cli.home, env }, async (proxy) => {
    const agent = new Agent({ keepAlive: true });
    const times: number[] = [];
    const spec = nativeRequest(proxy.url, '/v1/messages', neutralModel, true);
    // The first chat teaches the pool which arguments to keep warm (and is not counted).
    await ttftOnce(spec, agent);
    for (let i = 0; i < cli.requests; i++) {
      await sleep(cli.gapMs);
      const view = poolSize > 0 ? await poolView(proxy.url) : {};
      if (view.warm && view.rssBytes) raw.idleRss.push(view.rssBytes);
      const ttft = await ttftOnce(spec, agent);
      if (typeof ttft === 'number') times.push(ttft);
      else {
        raw.errors[poolSize > 0 ? 'pooled' : 'off']++;
        raw.firstError ??= `${cli.label}, pool ${poolSize}: ${ttft}`;
      }
      await between?.();
    }
    if (poolSize > 0) {
      const { hits = 0, misses = 0 } = await poolView(proxy.url);
      // The first, uncounted chat is always a miss: it teaches the pool what to keep warm.
      Object.assign(raw, { hits, misses: Math.max(0, misses - 1) });
    }
    agent.destroy();
    return times;
  });
}

async function measure(b: Bench, runner: CliRunner, cli: CliUnderTest): Promise<PoolRaw> {
  const raw: PoolRaw = {
    ...{ coldMs: [], pooledMs: [], offMs: [], idleRss: [], hits: 0, misses: 0 },
    errors: { pooled: 0, off: 0, cold: 0 },
  };
  const cliEnv = cliAloneEnv(cli.home, cli.env);
  const cold = async () => {
    await sleep(cli.gapMs);
    const ttft = await runner.ttft(cli.cliPath, providerModel, prompt, cliEnv);
    if (ttft === undefined) raw.errors.cold++;
    else raw.coldMs.push(ttft);
  };
  b.log(`(p) ${cli.label}: pool on, with a cold run of the CLI alone after each request`);
  raw.pooledMs = await viaProxy(b, cli, 1, raw, cold);
  b.log(`(p) ${cli.label}: pool off`);
  raw.offMs = await viaProxy(b, cli, 0, raw);
  const [pooled, off, cold2] = [raw.pooledMs, raw.offMs, raw.coldMs].map((v) => summarize(v));
  const wl = (pool: string) =>
    pairRow(`(p) ${cli.label}: through the proxy, pool ${pool} (proxy col.) vs the CLI alone, cold (direct col.)`);
  const [on, offRow] = [wl('on'), wl('off')];
  const rss = raw.idleRss.length ? summarize(raw.idleRss).p50 / 2 ** 20 : NaN;
  b.rows.push(
    on('TTFT p50', 'ms', pooled.p50, cold2.p50),
    on('TTFT max', 'ms', pooled.max, cold2.max),
    on('RSS of one idle warm CLI', 'MB', rss, 'n/a (not kept)', false),
    on('requests that took a warm process', 'count', raw.hits, 'n/a', false),
    on('requests that found none', 'count', raw.misses, 'n/a', false),
    on('errors', 'count', raw.errors.pooled, raw.errors.cold, false),
    offRow('TTFT p50', 'ms', off.p50, cold2.p50),
    offRow('errors', 'count', raw.errors.off, raw.errors.cold, false),
  );
  if (raw.firstError) b.notes.push(`(p) first error: ${raw.firstError}`);
  return raw;
}

export async function runPoolWorkload(b: Bench): Promise<void> {
  const { cfg } = b;
  const raw: Record<string, PoolRaw | string> = {};
  const runner = await startCliRunner();
  await inTempDir('bench-pool-', async (tmp) => {
    try {
      const reply = 'Hello from the fake assistant CLI.';
      const fake = await makeFakeCli({ delayMs: 0, tokenDelayMs: cfg.cliTokenDelayMs, reply });
      try {
        const home = join(tmp, 'fake-home');
        await mkdir(home, { recursive: true });
        const requests = cfg.quick ? 3 : 12;
        const cli = { label: 'fake CLI', cliPath: fake.path, env: {}, home, requests, gapMs: 500 };
        raw.fake = await measure(b, runner, cli);
      } finally {
        await fake.cleanup();
      }
      const note = '(p) the real CLI is not installed (npm run test:setup); only the fake CLI was measured';
      const real = await realCli(b, join(tmp, 'real-home'), note);
      if (typeof real === 'string') raw.real = real;
      else {
        const replyText = 'Hello from the simulator through the real CLI';
        await b.sim.setKnobs({ ...baseKnobs(), replyText, answerTools: false });
        raw.real = await measure(b, runner, { ...real, label: 'real CLI', requests: cfg.quick ? 2 : 6, gapMs: 4000 });
        await b.sim.setKnobs(baseKnobs());
      }
    } finally {
      runner.stop();
    }
  });
  b.raw.p = raw;
}
