// (p) The warm CLI pool (src/proxy/backends/cli-pool.ts): time to first token of a CLI the pool started ahead
// against the same CLI started cold, request by request, for the fake CLI (start-up only: its reply comes at once)
// and for the real assistant CLI when the test set-up installed it (.cache/real-cli), pointed at the simulator.
// In the table the pooled figure sits in the proxy column and the cold one in the direct column, so "proxy/direct"
// is the pool's ratio to the CLI's own cold start. Until the pool is wired into the CLI backend this measures the
// pool module driving the CLI exactly as the backend spawns it (argv, stdin), without the proxy's HTTP hop.

import { fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { makeFakeCli } from '../test/fixtures/fake-cli.js';
import { writeCliCredentials } from '../test/simulator/index.js';
import { defaultProfile } from '../src/proxy/profile.js';
import { baseKnobs, providerModel, type Bench } from './context.js';
import type { PoolJob, PoolResult } from './pool-probe-process.js';
import type { Cell, Row, Target } from './report.js';
import { repoRoot } from './servers.js';
import { summarize } from './stats.js';

export const realCliPath = process.env.REAL_ASSISTANT_CLI || join(repoRoot, '.cache', 'real-cli', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');

function runProbe(job: PoolJob): Promise<PoolResult> {
  const child = fork(join(repoRoot, 'bench', 'pool-probe-process.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`pool probe exited (${code})`)));
    child.on('message', (m: { type: string; result?: PoolResult; message?: string }) => {
      if (m.type === 'ready') child.send({ type: 'run', job });
      else if (m.type === 'result') {
        child.disconnect();
        resolve(m.result!);
      } else if (m.type === 'error') {
        child.disconnect();
        reject(new Error(m.message));
      }
    });
  });
}

function rows(b: Bench, label: string, r: PoolResult): void {
  const pooled = summarize(r.pooledMs);
  const cold = summarize(r.coldMs);
  const none = 'n/a';
  const cells = (p: Cell, c: Cell): Record<Target, Cell> => ({ proxy: p, direct: c, nginx: none, node: none, ccr: none });
  const wl = `(p) ${label}: pool on (proxy col.) vs cold start (direct col.)`;
  const rss = r.idleRss.length ? summarize(r.idleRss).p50 / 2 ** 20 : NaN;
  const out: Row[] = [
    { workload: wl, metric: 'TTFT p50', unit: 'ms', cells: cells(pooled.p50, cold.p50), ratios: true },
    { workload: wl, metric: 'TTFT max', unit: 'ms', cells: cells(pooled.max, cold.max), ratios: true },
    { workload: wl, metric: 'RSS of one idle warm CLI', unit: 'MB', cells: cells(rss, 'n/a (not kept)'), ratios: false },
    { workload: wl, metric: 'errors', unit: 'count', cells: cells(r.pooledErrors, r.coldErrors), ratios: false },
  ];
  b.rows.push(...out);
  if (r.firstError) b.notes.push(`(p) ${label}: first error: ${r.firstError}`);
}

export async function runPoolWorkload(b: Bench): Promise<void> {
  const { cfg } = b;
  const raw: Record<string, unknown> = {};
  const tmp = await mkdtemp(join(tmpdir(), 'bench-pool-'));
  try {
    const workDir = join(tmp, 'work');
    await mkdir(workDir, { recursive: true });
    const fake = await makeFakeCli({ delayMs: 0, tokenDelayMs: cfg.cliTokenDelayMs, reply: 'Hello from the fake assistant CLI.' });
    try {
      b.log('(p) warm CLI pool: fake CLI');
      const r = await runProbe({
        cliPath: fake.path,
        model: providerModel,
        prompt: 'Say hello in a few words.',
        env: b.cliEnv,
        cwd: workDir,
        requests: cfg.quick ? 3 : 12,
        gapMs: 500,
        timeoutMs: 30_000,
        input: 'text',
      });
      raw.fake = r;
      rows(b, 'fake CLI', r);
    } finally {
      await fake.cleanup();
    }
    if (existsSync(realCliPath)) {
      await b.sim.setKnobs({ ...baseKnobs(), replyText: 'Hello from the simulator through the real CLI', answerTools: false });
      const home = join(tmp, 'real-home');
      await mkdir(join(home, '.claude'), { recursive: true });
      await writeCliCredentials(join(home, '.claude'), { accessToken: 'sk-ant-oat01-bench-real-cli', refreshToken: 'sk-ant-ort01-bench-real-cli', expiresAt: Date.now() + 3_600_000 });
      for (const input of ['text', 'stream-json'] as const) {
        b.log(`(p) warm CLI pool: real CLI, ${input} input`);
        const r = await runProbe({
          cliPath: realCliPath,
          model: providerModel,
          prompt: 'Say hello in a few words.',
          env: { PATH: process.env.PATH, HOME: home, [defaultProfile.cli.baseUrlEnv]: b.sim.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', [defaultProfile.cli.maxRetriesEnv]: '2' },
          cwd: workDir,
          requests: cfg.quick ? 2 : 6,
          // longer than the real CLI's 3 s wait for stdin, so a warm process must survive it
          gapMs: 4000,
          timeoutMs: 60_000,
          input,
        });
        raw[`real-${input}`] = r;
        rows(b, `real CLI, ${input} input`, r);
      }
    } else {
      raw.real = `not installed at ${relative(repoRoot, realCliPath)} (npm run test:setup installs it)`;
      b.notes.push('(p) the real CLI is not installed (npm run test:setup); only the fake CLI was measured');
    }
  } finally {
    await rm(tmp, { recursive: true, force: true });
  }
  b.raw.p = raw;
}
