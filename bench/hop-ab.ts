// Quick hop comparison for profiling work (docs/benchmarks.md "Profiling"): one simulator, the built proxy and the
// minimal Node hop, native and translated non-streamed requests at 32 connections, interleaved for BENCH_ROUNDS
// rounds, with the provider's answer sent both ways (with a content-length, and chunked without one); prints the
// CPU per request of each and the ratios. Not part of `npm run bench`'s table.
// Usage: npx tsx bench/hop-ab.ts
// HOP_AB_BASE=<dir>: also a proxy built in another checkout (e.g. a git worktree of the commit before a change,
// with `npx tsc -p tsconfig.build.json` run there and node_modules linked), as native-base and compat-base: a
// change's effect measured against its parent in one interleaved run.
// HOP_AB_SPREAD=1: the latency workload of (a) instead (32 clients spread over a HOP_AB_LATENCY_MS upstream,
// default 100 ms), with direct as a target, printing each target's added median and p99 over direct.
// HOP_AB_CONNECTIONS (32): clients in the closed loop or the spread workload; 1 shows a hop's own time on the path
// without other requests' work in the way.
// HOP_AB_FRAMING=length,chunked: which answer framings (chunked: the simulator's jsonChunks, HOP_AB_CHUNKS writes).

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from './cpu.js';
import { runLoad, runStaggered, type RequestSpec } from './load.js';
import { attachProxy, buildProxy, proxyEnv, startNodeHop, startProxyProcess, startSimulatorProcess, writeBenchCredentials, type ProxyProcess } from './servers.js';
import { median, Samples } from './stats.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_DURATION_SEC ?? 5);
// HOP_AB_RATE: a fixed offered load (req/s) below what either hop serves, so both batch alike and the CPU per
// request compares work, not how starved each was.
const rate = process.env.HOP_AB_RATE ? Number(process.env.HOP_AB_RATE) : undefined;
const spread = ['1', 'true', 'on'].includes(process.env.HOP_AB_SPREAD ?? '');
const latencyMs = Number(process.env.HOP_AB_LATENCY_MS ?? 100);
const chunks = Number(process.env.HOP_AB_CHUNKS ?? 2);
const connections = Number(process.env.HOP_AB_CONNECTIONS ?? 32);
const framings = (process.env.HOP_AB_FRAMING ?? 'length,chunked').split(',').map((f) => f.trim()) as Array<'length' | 'chunked'>;
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
if (spread) specs.direct = [{ base: sim.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, NaN];
if (base) {
  specs['native-base'] = [{ ...specs.native[0], base: base.url }, base.pid];
  specs['compat-base'] = [{ ...specs.compat[0], base: base.url }, base.pid];
}
const only = (process.env.HOP_AB_ONLY ?? Object.keys(specs).join(',')).split(',');
for (const name of Object.keys(specs)) if (!only.includes(name) && !(spread && name === 'direct')) delete specs[name];
const knobsOf = (f: 'length' | 'chunked') => ({ jsonChunks: f === 'chunked' ? chunks : undefined });
const key = (name: string, f: string) => `${name} ${f}`;
const cpu: Record<string, number[]> = {};
const samples: Record<string, Samples> = {};
const roundP: Record<string, Array<[number, number]>> = {};
for (const f of framings) {
  await sim.setKnobs(knobsOf(f));
  for (const [spec] of Object.values(specs)) await runLoad(spec, { connections: 32, durationSec: 1 });
}
await sim.setKnobs({ latencyMs: spread ? latencyMs : 0 });
for (let r = 0; r < rounds; r++) {
  for (const f of framings) {
    await sim.setKnobs(knobsOf(f));
    for (const [name, [spec, pid]] of Object.entries(specs)) {
      const k = key(name, f);
      const c0 = cpuSeconds(pid);
      const res = spread
        ? await runStaggered(spec, { connections, durationSec: seconds, periodMs: latencyMs })
        : await runLoad(spec, { connections, durationSec: seconds, overallRate: rate, keepSamples: true });
      const us = ((cpuSeconds(pid) - c0) * 1e6) / (res.ok + res.non2xx);
      if (res.non2xx || res.errors) console.log(k, 'errors', res.non2xx, res.errors, res.statusCodes);
      (cpu[k] ??= []).push(us);
      (samples[k] ??= new Samples()).pushAll(res.samples!);
      const s = res.samples!.summary();
      (roundP[k] ??= []).push([s.p50, s.p99]);
    }
  }
}
const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(0) : '—');
for (const k of Object.keys(cpu)) console.log(`${k.padEnd(20)} CPU/req ${cpu[k].map(fmt).join(' ')} µs (median ${fmt(median(cpu[k]))})`);
const m = (name: string, f: string) => median(cpu[key(name, f)] ?? []);
for (const f of framings) {
  if (m('hop', f)) console.log(`${f}: native/hop ${(m('native', f) / m('hop', f)).toFixed(2)}x  compat/hop ${(m('compat', f) / m('hop', f)).toFixed(2)}x`);
  if (base) console.log(`${f}: against the base: native ${(m('native', f) / m('native-base', f)).toFixed(2)}x  compat ${(m('compat', f) / m('compat-base', f)).toFixed(2)}x`);
}
if (framings.length === 2) console.log(`native chunked/length CPU ${(m('native', 'chunked') / m('native', 'length')).toFixed(2)}x`);
if (spread) {
  for (const f of framings) {
    const d = samples[key('direct', f)].summary();
    const dr = roundP[key('direct', f)];
    for (const name of Object.keys(specs)) {
      if (name === 'direct') continue;
      const s = samples[key(name, f)].summary();
      const perRound = roundP[key(name, f)].map(([p50, p99], i) => `${(p50 - dr[i][0]).toFixed(2)}/${(p99 - dr[i][1]).toFixed(1)}`).join(' ');
      console.log(`${key(name, f).padEnd(20)} added p50 ${(s.p50 - d.p50).toFixed(2)} ms  p99 ${(s.p99 - d.p99).toFixed(2)} ms  (rounds p50/p99: ${perRound})`);
    }
  }
}
await proxy.stop();
await base?.stop();
await hop.stop();
await sim.stop();
rmSync(home, { recursive: true, force: true });
