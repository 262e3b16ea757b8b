// The proxy started other ways (docs/benchmarks.md "What is measured"): (l) the usage ledger on and off
// (bench/ledger-proxy-process.mjs), driven alternately; (s) the time from spawn to "listening on".

import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { baseKnobs, nativeRequest, neutralModel, type Bench } from './context.js';
import { runLoad } from './load.js';
import { cpuSeconds, perRequestUs } from './procfs.js';
import { pair, row } from './report.js';
import { proxyEnv, repoRoot, spawnNode } from './servers.js';
import { median, summarize, type Summary } from './load.js';

export async function runLedgerWorkload(b: Bench): Promise<void> {
  const { cfg } = b;
  await b.sim.setKnobs(baseKnobs());
  const start = (mode: 'on' | 'off') =>
    spawnNode('proxy', [join(repoRoot, 'bench', 'ledger-proxy-process.mjs'), mode], {
      ...proxyEnv(b.proxyOptions),
      DATA_DIR: join(b.proxyOptions.home, `ledger-${mode}`),
    });
  const variants = { on: await start('on'), off: await start('off') };
  try {
    const spec = (mode: 'on' | 'off') => nativeRequest(variants[mode].url, '/api/v1/messages', neutralModel);
    for (const mode of ['on', 'off'] as const)
      await runLoad(spec(mode), { connections: 32, durationSec: cfg.warmupSec });
    const cpu: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const rps: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let round = 0; round < cfg.rounds; round++) {
      for (const mode of ['on', 'off'] as const) {
        b.log(`(l) ledger ${mode}, round ${round + 1}/${cfg.rounds}`);
        const c0 = cpuSeconds(variants[mode].pid);
        const r = await runLoad(spec(mode), { connections: 32, durationSec: cfg.durationSec });
        cpu[mode].push(perRequestUs(cpuSeconds(variants[mode].pid) - c0, r.ok + r.non2xx));
        rps[mode].push(r.rps);
      }
    }
    const wl = '(l) usage ledger on (proxy col.) vs off (direct col.), native, 32 conc.';
    b.rows.push(
      row(wl, 'hop CPU per request (µs)', 'count', pair(median(cpu.on), median(cpu.off))),
      row(wl, 'throughput', 'req/s', pair(median(rps.on), median(rps.off))),
    );
    b.raw.l = { cpuPerRequestUs: cpu, rps };
  } finally {
    await Promise.allSettled([variants.on.stop(), variants.off.stop()]);
  }
}

export async function runStartup(b: Bench, runs = b.cfg.quick ? 2 : 5): Promise<void> {
  const at = (...p: string[]) => join(repoRoot, ...p);
  const variants: Array<[string, string[]]> = [
    ['node dist/proxy/cli.js', [at('dist', 'proxy', 'cli.js')]],
    ['node scripts/serve.mjs', [at('scripts', 'serve.mjs')]],
    // tsx's own CLI starts a second node with its loader, exactly as `tsx src/proxy/cli.ts` does.
    ['tsx src/proxy/cli.ts', [at('node_modules', 'tsx', 'dist', 'cli.mjs'), at('src', 'proxy', 'cli.ts')]],
  ];
  const present = variants.filter(([, args]) => existsSync(args.at(-1)!));
  const samples = new Map<string, number[]>(present.map(([label]) => [label, []]));
  const failures: string[] = [];
  for (let i = 0; i < runs; i++) {
    for (const [label, args] of present) {
      b.log(`(s) start-up: ${label}, run ${i + 1}/${runs}`);
      try {
        const t0 = performance.now();
        const proxy = await spawnNode('proxy', args, proxyEnv(b.proxyOptions));
        samples.get(label)!.push(performance.now() - t0);
        await proxy.stop();
      } catch (err) {
        failures.push(`${label}: ${(err as Error).message.slice(0, 200)}`);
      }
    }
  }
  const raw: Record<string, Summary> = {};
  for (const [label] of present) {
    const s = (raw[label] = summarize(samples.get(label)!));
    const cells = pair(s.p50, 'n/a (no hop)');
    b.rows.push(
      row(`(s) start to listening, ${label}`, 'median', 'ms', cells, false),
      row(`(s) start to listening, ${label}`, 'max', 'ms', { ...cells, proxy: s.max }, false),
    );
  }
  b.raw.s = { runs, variants: raw, failures };
  for (const f of failures.slice(0, 3)) b.notes.push(`(s) a start failed: ${f}`);
}
