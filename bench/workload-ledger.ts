// (l) The usage ledger's cost: two proxies from the same build, one recording usage into the ledger in a temporary
// DATA_DIR, one with the no-op sink (bench/ledger-proxy-process.mjs), driven alternately with (a)'s non-streaming
// native request at 32 connections; hop CPU per request of each. The soak (f) runs with the ledger on, since
// the headless serve opens it.

import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { baseKnobs, type Bench } from './context.js';
import { cpuSeconds } from './cpu.js';
import { runLoad, type RequestSpec } from './load.js';
import type { Cell, Target } from './report.js';
import { attachProxy, proxyEnv, repoRoot, type ProxyProcess, type ProxyProcessOptions } from './servers.js';
import { median } from './stats.js';

async function startVariant(
  mode: 'on' | 'off',
  o: Omit<ProxyProcessOptions, 'build' | 'nodeArgs'>,
  dataDir: string,
): Promise<ProxyProcess> {
  const env = { ...proxyEnv(o), DATA_DIR: dataDir };
  const child = spawn(process.execPath, [join(repoRoot, 'bench', 'ledger-proxy-process.mjs'), mode], {
    cwd: repoRoot,
    env,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  return attachProxy(child);
}

export async function runLedgerWorkload(b: Bench, o: Omit<ProxyProcessOptions, 'build' | 'nodeArgs'>): Promise<void> {
  const { cfg } = b;
  await b.sim.setKnobs(baseKnobs());
  const on = await startVariant('on', o, join(o.home, 'ledger-on'));
  const off = await startVariant('off', o, join(o.home, 'ledger-off'));
  try {
    const body = JSON.stringify({
      model: 'assistant-sonnet-4-20250514',
      max_tokens: 1024,
      messages: [{ role: 'user', content: 'Say hello in a few words.' }],
    });
    const spec = (p: ProxyProcess): RequestSpec => ({
      base: p.url,
      path: '/api/v1/messages',
      headers: {
        'content-type': 'application/json',
        'x-api-key': 'bench-dummy-key',
        'anthropic-version': '2023-06-01',
      },
      body,
    });
    for (const p of [on, off]) await runLoad(spec(p), { connections: 32, durationSec: cfg.warmupSec });
    const cpu: Record<'on' | 'off', number[]> = { on: [], off: [] };
    const rps: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let round = 0; round < cfg.rounds; round++) {
      for (const [name, p] of [
        ['on', on],
        ['off', off],
      ] as const) {
        b.log(`(l) ledger ${name}, round ${round + 1}/${cfg.rounds}`);
        const c0 = cpuSeconds(p.pid);
        const r = await runLoad(spec(p), { connections: 32, durationSec: cfg.durationSec });
        cpu[name].push(((cpuSeconds(p.pid) - c0) / Math.max(1, r.ok + r.non2xx)) * 1e6);
        rps[name].push(r.rps);
      }
    }
    const wl = '(l) usage ledger on (proxy col.) vs off (direct col.), native, 32 conc.';
    const cells = (a: number, z: number): Record<Target, Cell> => ({
      proxy: a,
      direct: z,
      nginx: 'n/a',
      node: 'n/a',
      ccr: 'n/a',
    });
    b.rows.push(
      {
        workload: wl,
        metric: 'hop CPU per request (µs)',
        unit: 'count',
        cells: cells(median(cpu.on), median(cpu.off)),
        ratios: true,
      },
      {
        workload: wl,
        metric: 'throughput',
        unit: 'req/s',
        cells: cells(median(rps.on), median(rps.off)),
        ratios: true,
      },
    );
    b.raw.l = { cpuPerRequestUs: cpu, rps };
  } finally {
    await Promise.allSettled([on.stop(), off.stop()]);
  }
}
