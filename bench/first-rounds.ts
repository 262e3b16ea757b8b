// What a hop pays in its first rounds under load (docs/benchmarks.md "Seventh pass"): the built proxy and the minimal
// Node hop, warmed for 3 s, then left alone for IDLE_SEC, then driven for ROUNDS rounds of 4 s each at 32 connections
// in a closed loop with 2 s between them; prints each round's CPU per request, the minor and major page faults the
// hop took in it (from /proc/<pid>/stat) and the machine's file-page refaults. The proxy's first round costs more
// than the ones after it whether it idled for 30 s or 2 s: its heap is still growing to its working size (RSS up by
// about 60 MB in that round), which the Node hop's is not; after a longer idle V8 may also have given the young
// generation back ("Eighth pass"). `npm run bench` keeps that cost out of its rows with a lead-in per round and
// reports it on rows of its own.
// Usage: npx tsx bench/first-rounds.ts   (IDLE_SEC=30, ROUNDS=4; BENCH_PROXY_NODE_ARGS / BENCH_HOP_NODE_ARGS, as for
// `npm run bench`: '--import <repo>/bench/loop-monitor.mjs' for the RSS second by second, or V8 flags)

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuSeconds } from './cpu.js';
import { runLoad, type RequestSpec } from './load.js';
import { buildProxy, startNodeHop, startProxyProcess, startSimulatorProcess, writeBenchCredentials } from './servers.js';

const idleSec = Number(process.env.IDLE_SEC ?? 30);
const rounds = Number(process.env.ROUNDS ?? 4);

/** Minor and major page faults of a process so far (fields 10 and 12 of /proc/<pid>/stat). */
function faults(pid: number): { minor: number; major: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { minor: Number(fields[7]), major: Number(fields[9]) };
}

/** File pages the kernel had evicted and read back, machine-wide (a reclaimer paging out idle code shows here). */
function fileRefaults(): number {
  const line = readFileSync('/proc/vmstat', 'utf8').split('\n').find((l) => l.startsWith('workingset_refault_file '));
  return line ? Number(line.split(' ')[1]) : NaN;
}

const home = mkdtempSync(join(tmpdir(), 'first-rounds-'));
const sim = await startSimulatorProcess();
const credentialsPath = await writeBenchCredentials(home);
const proxy = await startProxyProcess({
  build: buildProxy((line) => console.log(line)),
  simulator: sim,
  credentialsPath,
  cliPath: '/bin/false',
  home,
  logLevel: 'warn',
  nodeArgs: (process.env.BENCH_PROXY_NODE_ARGS ?? '').split(' ').filter(Boolean),
});
const hop = await startNodeHop(sim.url);
const headers = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
const body = (model: string) => JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello in a few words.' }] });
const targets: Array<[string, RequestSpec, number]> = [
  ['proxy', { base: proxy.url, path: '/api/v1/messages', headers, body: body('assistant-sonnet-4-20250514') }, proxy.pid],
  ['hop', { base: hop.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, hop.pid],
];
try {
  for (const [, spec] of targets) await runLoad(spec, { connections: 32, durationSec: 3 });
  for (let r = 0; r < rounds; r++) {
    await new Promise((resolve) => setTimeout(resolve, (r === 0 ? idleSec : 2) * 1000));
    for (const [name, spec, pid] of targets) {
      const cpu0 = cpuSeconds(pid);
      const f0 = faults(pid);
      const refaults0 = fileRefaults();
      const res = await runLoad(spec, { connections: 32, durationSec: 4 });
      const f1 = faults(pid);
      const us = ((cpuSeconds(pid) - cpu0) * 1e6) / Math.max(1, res.ok + res.non2xx);
      console.log(
        `round ${r + 1}${r === 0 ? ` (after ${idleSec} s idle)` : ''} ${name.padEnd(5)} CPU/req ${us.toFixed(0)} µs  minor faults ${f1.minor - f0.minor}  major ${f1.major - f0.major}  file refaults (machine) ${fileRefaults() - refaults0}`,
      );
    }
  }
} finally {
  await proxy.stop();
  await hop.stop();
  await sim.stop();
  rmSync(home, { recursive: true, force: true });
}
