// (p) The warm CLI pool through the proxy (src/proxy/backends/cli/warm-pool.ts; docs/performance.md "Warm CLI pool"):
// time to first token at the client on POST /v1/messages (streaming) with CLI_POOL_SIZE=1, against the same CLI run
// alone and started cold (spawn, prompt on stdin, first text delta: bench/cli-probe.ts), and against the proxy with
// the pool off (CLI_POOL_SIZE=0). For the fake CLI (start-up only: its reply comes at once) and for the real
// assistant CLI when the test set-up installed it (.cache/real-cli), pointed at the simulator. Each request waits a
// gap first, as a user's think time would; for the real CLI the gap is longer than its 3 s wait for a text prompt,
// so a warm process must outlive it. A cold run of the CLI alone follows each pooled request, after the same gap.
// In the table the proxy's figure sits in the proxy column and the CLI alone in the direct column.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { makeFakeCli } from '../test/fixtures/fake-cli.js';
import { writeCliCredentials } from '../test/simulator/index.js';
import { defaultProfile } from '../src/proxy/profile.js';
import { startCliRunner, type CliRunner } from './cli-probe.js';
import { baseKnobs, neutralModel, providerModel, sleep, type Bench } from './context.js';
import type { RequestSpec } from './load.js';
import type { Cell, Row, Target } from './report.js';
import { repoRoot, startProxyProcess, type ProxyProcessOptions } from './servers.js';
import { summarize } from './stats.js';
import { readStream } from './stream-probe.js';

export const realCliPath =
  process.env.REAL_ASSISTANT_CLI ||
  join(repoRoot, '.cache', 'real-cli', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');

const prompt = 'Say hello in a few words.';

interface CliUnderTest {
  label: string;
  path: string;
  /** What the CLI needs beyond the proxy's own environment (the real one: its base URL, pointed at the simulator). */
  env: NodeJS.ProcessEnv;
  home: string;
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
  firstError?: string;
}

function chatSpec(base: string): RequestSpec {
  return {
    base,
    path: '/v1/messages',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model: neutralModel,
      max_tokens: 256,
      stream: true,
      messages: [{ role: 'user', content: prompt }],
    }),
  };
}

async function warmRss(base: string): Promise<number | undefined> {
  const res = await fetch(`${base}/health/detailed`);
  const body = (await res.json()) as { components?: { cli_pool?: { warm?: number; rssBytes?: number } } };
  const pool = body.components?.cli_pool;
  return pool?.warm ? pool.rssBytes : undefined;
}

/** One proxy with the given pool size: `requests` streamed chats, each after `gapMs`; `between` runs after each. */
async function viaProxy(
  b: Bench,
  o: ProxyProcessOptions,
  cli: CliUnderTest,
  poolSize: number,
  raw: PoolRaw,
  between?: () => Promise<void>,
): Promise<number[]> {
  const proxy = await startProxyProcess({
    ...o,
    cliPath: cli.path,
    home: cli.home,
    env: { ...cli.env, CLI_POOL_SIZE: String(poolSize) },
  });
  const agent = new Agent({ keepAlive: true });
  const times: number[] = [];
  try {
    const spec = chatSpec(proxy.url);
    // The first chat teaches the pool which arguments to keep warm (and is not counted).
    await readStream(spec, 'native', agent, 60_000);
    for (let i = 0; i < cli.requests; i++) {
      await sleep(cli.gapMs);
      if (poolSize > 0) {
        const rss = await warmRss(proxy.url);
        if (rss) raw.idleRss.push(rss);
      }
      const rec = await readStream(spec, 'native', agent, 60_000);
      if (rec.error || !rec.complete || rec.deltaTimes.length === 0) {
        raw.errors[poolSize > 0 ? 'pooled' : 'off']++;
        raw.firstError ??= `${cli.label}, pool ${poolSize}: ${rec.error ?? 'no text delta'}`;
      } else times.push(rec.deltaTimes[0] - rec.startAt);
      await between?.();
    }
  } finally {
    agent.destroy();
    await proxy.stop();
  }
  return times;
}

async function measure(b: Bench, o: ProxyProcessOptions, runner: CliRunner, cli: CliUnderTest): Promise<PoolRaw> {
  const raw: PoolRaw = { coldMs: [], pooledMs: [], offMs: [], idleRss: [], errors: { pooled: 0, off: 0, cold: 0 } };
  const cliEnv = { PATH: process.env.PATH, HOME: cli.home, [defaultProfile.cli.maxRetriesEnv]: '2', ...cli.env };
  const cold = async () => {
    await sleep(cli.gapMs);
    const run = await runner.run(cli.path, providerModel, prompt, cliEnv);
    if (run.ttftMs === undefined || run.exitCode !== 0) raw.errors.cold++;
    else raw.coldMs.push(run.ttftMs);
  };
  b.log(`(p) ${cli.label}: pool on, with a cold run of the CLI alone after each request`);
  raw.pooledMs = await viaProxy(b, o, cli, 1, raw, cold);
  b.log(`(p) ${cli.label}: pool off`);
  raw.offMs = await viaProxy(b, o, cli, 0, raw);
  return raw;
}

function rows(b: Bench, label: string, r: PoolRaw): void {
  const none = 'n/a';
  const cells = (p: Cell, c: Cell): Record<Target, Cell> => ({
    proxy: p,
    direct: c,
    nginx: none,
    node: none,
    ccr: none,
  });
  const pooled = summarize(r.pooledMs);
  const off = summarize(r.offMs);
  const cold = summarize(r.coldMs);
  const on = `(p) ${label}: through the proxy, pool on (proxy col.) vs the CLI alone, cold (direct col.)`;
  const offWl = `(p) ${label}: through the proxy, pool off (proxy col.) vs the CLI alone, cold (direct col.)`;
  const rss = r.idleRss.length ? summarize(r.idleRss).p50 / 2 ** 20 : NaN;
  const out: Row[] = [
    { workload: on, metric: 'TTFT p50', unit: 'ms', cells: cells(pooled.p50, cold.p50), ratios: true },
    { workload: on, metric: 'TTFT max', unit: 'ms', cells: cells(pooled.max, cold.max), ratios: true },
    {
      workload: on,
      metric: 'RSS of one idle warm CLI',
      unit: 'MB',
      cells: cells(rss, 'n/a (not kept)'),
      ratios: false,
    },
    { workload: on, metric: 'errors', unit: 'count', cells: cells(r.errors.pooled, r.errors.cold), ratios: false },
    { workload: offWl, metric: 'TTFT p50', unit: 'ms', cells: cells(off.p50, cold.p50), ratios: true },
    { workload: offWl, metric: 'errors', unit: 'count', cells: cells(r.errors.off, r.errors.cold), ratios: false },
  ];
  b.rows.push(...out);
  if (r.firstError) b.notes.push(`(p) first error: ${r.firstError}`);
}

export async function runPoolWorkload(b: Bench, o: ProxyProcessOptions): Promise<void> {
  const { cfg } = b;
  const raw: Record<string, PoolRaw | string> = {};
  const tmp = await mkdtemp(join(tmpdir(), 'bench-pool-'));
  const runner = await startCliRunner();
  try {
    const fake = await makeFakeCli({
      delayMs: 0,
      tokenDelayMs: cfg.cliTokenDelayMs,
      reply: 'Hello from the fake assistant CLI.',
    });
    try {
      const home = join(tmp, 'fake-home');
      await mkdir(home, { recursive: true });
      const cli = { label: 'fake CLI', path: fake.path, env: {}, home, requests: cfg.quick ? 3 : 12, gapMs: 500 };
      raw.fake = await measure(b, o, runner, cli);
      rows(b, cli.label, raw.fake);
    } finally {
      await fake.cleanup();
    }
    if (existsSync(realCliPath)) {
      await b.sim.setKnobs({
        ...baseKnobs(),
        replyText: 'Hello from the simulator through the real CLI',
        answerTools: false,
      });
      const home = join(tmp, 'real-home');
      await mkdir(join(home, '.claude'), { recursive: true });
      await writeCliCredentials(join(home, '.claude'), {
        accessToken: 'sk-ant-oat01-bench-real-cli',
        refreshToken: 'sk-ant-ort01-bench-real-cli',
        expiresAt: Date.now() + 3_600_000,
      });
      const env = { [defaultProfile.cli.baseUrlEnv]: b.sim.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
      // Longer than the real CLI's 3 s wait for a text prompt: a warm process must outlive it.
      const cli = { label: 'real CLI', path: realCliPath, env, home, requests: cfg.quick ? 2 : 6, gapMs: 4000 };
      raw.real = await measure(b, o, runner, cli);
      rows(b, cli.label, raw.real);
      await b.sim.setKnobs(baseKnobs());
    } else {
      raw.real = `not installed at ${relative(repoRoot, realCliPath)} (npm run test:setup installs it)`;
      b.notes.push('(p) the real CLI is not installed (npm run test:setup); only the fake CLI was measured');
    }
  } finally {
    runner.stop();
    await rm(tmp, { recursive: true, force: true });
  }
  b.raw.p = raw;
}
