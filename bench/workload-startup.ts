// (s) Start-up: time from spawning the proxy to its "listening on" line, for each way it can be started, interleaved
// run by run: the built JavaScript (`node dist/proxy/cli.js`, what `npm run serve` runs through scripts/serve.mjs),
// scripts/serve.mjs itself (its freshness check of dist/ included), and the TypeScript sources through tsx (what
// `npm run serve` ran before). Each process is stopped again right after it listens.

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Bench } from './context.js';
import type { Cell, Target } from './report.js';
import { attachProxy, proxyEnv, repoRoot, type ProxyProcessOptions } from './servers.js';
import { Samples, type Summary } from './stats.js';

export interface StartupVariant {
  label: string;
  args: string[];
}

export function startupVariants(): StartupVariant[] {
  const out: StartupVariant[] = [];
  if (existsSync(join(repoRoot, 'dist', 'proxy', 'cli.js')))
    out.push({ label: 'node dist/proxy/cli.js', args: [join(repoRoot, 'dist', 'proxy', 'cli.js')] });
  if (existsSync(join(repoRoot, 'scripts', 'serve.mjs')))
    out.push({ label: 'node scripts/serve.mjs', args: [join(repoRoot, 'scripts', 'serve.mjs')] });
  // tsx's own CLI starts a second node with its loader, exactly as `tsx src/proxy/cli.ts` does.
  out.push({
    label: 'tsx src/proxy/cli.ts',
    args: [join(repoRoot, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(repoRoot, 'src', 'proxy', 'cli.ts')],
  });
  return out;
}

async function timeStart(v: StartupVariant, env: NodeJS.ProcessEnv): Promise<number> {
  const t0 = performance.now();
  const child = spawn(process.execPath, v.args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const proxy = await attachProxy(child);
  const ms = performance.now() - t0;
  await proxy.stop();
  return ms;
}

export async function runStartup(
  b: Bench,
  o: Omit<ProxyProcessOptions, 'build' | 'nodeArgs'>,
  runs = b.cfg.quick ? 2 : 5,
): Promise<void> {
  const env = proxyEnv(o);
  const variants = startupVariants();
  const samples = new Map<string, Samples>(variants.map((v) => [v.label, new Samples()]));
  const failures: string[] = [];
  for (let i = 0; i < runs; i++) {
    for (const v of variants) {
      b.log(`(s) start-up: ${v.label}, run ${i + 1}/${runs}`);
      try {
        samples.get(v.label)!.push(await timeStart(v, env));
      } catch (err) {
        failures.push(`${v.label}: ${(err as Error).message.slice(0, 200)}`);
      }
    }
  }
  const raw: Record<string, Summary> = {};
  for (const v of variants) {
    const s = samples.get(v.label)!.summary();
    raw[v.label] = s;
    const cells = (value: number): Record<Target, Cell> => ({
      proxy: value,
      direct: 'n/a (no hop)',
      nginx: 'n/a',
      node: 'n/a',
      ccr: 'n/a',
    });
    const wl = `(s) start to listening, ${v.label}`;
    b.rows.push(
      { workload: wl, metric: 'median', unit: 'ms', cells: cells(s.p50), ratios: false },
      { workload: wl, metric: 'max', unit: 'ms', cells: cells(s.max), ratios: false },
    );
  }
  b.raw.s = { runs, variants: raw, failures };
  for (const f of failures.slice(0, 3)) b.notes.push(`(s) a start failed: ${f}`);
}
