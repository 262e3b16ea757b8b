// Quick hop comparison for profiling work (docs/benchmarks.md "Profiling"): one simulator, the built proxy and the
// minimal Node hop, native and translated non-streamed requests at 32 connections, interleaved for BENCH_ROUNDS
// rounds; prints the CPU per request of each and the ratios. Not part of `npm run bench`'s table.
// Usage: npx tsx bench/hop-ab.ts
// HOP_AB_BASE=<dir>: also a proxy built in another checkout (e.g. a git worktree of the commit before a change,
// with `npx tsc -p tsconfig.build.json` run there and node_modules linked), as native-base and compat-base: a
// change's effect measured against its parent in one interleaved run.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from './cpu.js';
import { runLoad, type RequestSpec } from './load.js';
import { attachProxy, buildProxy, proxyEnv, startNodeHop, startProxyProcess, startSimulatorProcess, writeBenchCredentials, type ProxyProcess } from './servers.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_DURATION_SEC ?? 5);
// HOP_AB_RATE: a fixed offered load (req/s) below what either hop serves, so both batch alike and the CPU per
// request compares work, not how starved each was.
const rate = process.env.HOP_AB_RATE ? Number(process.env.HOP_AB_RATE) : undefined;
const home = mkdtempSync(join(tmpdir(), 'hop-ab-'));
const sim = await startSimulatorProcess();
await sim.setKnobs({ latencyMs: 0 });
const credentialsPath = await writeBenchCredentials(home);
const build = buildProxy((line) => console.log(line));
const proxy = await startProxyProcess({
  build,
  simulator: sim,
  credentialsPath,
  cliPath: '/bin/false',
  home,
  logLevel: 'warn',
  nodeArgs: (process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter(Boolean),
});
const hop = await startNodeHop(sim.url);
const baseDir = process.env.HOP_AB_BASE;
let base: ProxyProcess | undefined;
if (baseDir) {
  const env = proxyEnv({ simulator: sim, credentialsPath, cliPath: '/bin/false', home, logLevel: 'warn' });
  base = await attachProxy(spawn(process.execPath, [join(baseDir, 'dist', 'proxy', 'cli.js')], { cwd: baseDir, env, stdio: ['ignore', 'pipe', 'pipe'] }));
}
const headers = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
const body = (model: string) => JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello in a few words.' }] });
const specs: Record<string, [RequestSpec, number]> = {
  native: [{ base: proxy.url, path: '/api/v1/messages', headers, body: body('assistant-sonnet-4-20250514') }, proxy.pid],
  compat: [{ base: proxy.url, path: '/api/v1/chat/completions', headers, body: body('assistant-sonnet-4-20250514') }, proxy.pid],
  hop: [{ base: hop.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, hop.pid],
};
if (base) {
  specs['native-base'] = [{ ...specs.native[0], base: base.url }, base.pid];
  specs['compat-base'] = [{ ...specs.compat[0], base: base.url }, base.pid];
}
const only = (process.env.HOP_AB_ONLY ?? Object.keys(specs).join(',')).split(',');
for (const name of Object.keys(specs)) if (!only.includes(name)) delete specs[name];
const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(specs).map((k) => [k, []]));
for (const [name, [spec]] of Object.entries(specs)) await runLoad(spec, { connections: 32, durationSec: 1 }).then(() => void name);
for (let r = 0; r < rounds; r++) {
  for (const [name, [spec, pid]] of Object.entries(specs)) {
    const c0 = cpuSeconds(pid);
    const res = await runLoad(spec, { connections: 32, durationSec: seconds, overallRate: rate });
    const us = ((cpuSeconds(pid) - c0) * 1e6) / (res.ok + res.non2xx);
    if (res.non2xx || res.errors) console.log(name, 'errors', res.non2xx, res.errors, res.statusCodes);
    cpu[name].push(us);
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const m = Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, med(v)]));
console.log(Object.entries(cpu).map(([k, v]) => `${k}: ${v.map((x) => x.toFixed(0)).join(' ')} µs (median ${m[k].toFixed(0)})`).join('\n'));
if (m.hop) console.log(`native/hop ${(m.native / m.hop).toFixed(2)}x  compat/hop ${(m.compat / m.hop).toFixed(2)}x`);
if (base) console.log(`against the base: native ${(m.native / m['native-base']).toFixed(2)}x  compat ${(m.compat / m['compat-base']).toFixed(2)}x`);
await proxy.stop();
await base?.stop();
await hop.stop();
await sim.stop();
rmSync(home, { recursive: true, force: true });
