// Where a hop's added latency sits (docs/benchmarks.md "Fourth pass"): several builds of the proxy, each from its
// own checkout and with its own environment, beside the Node hop and direct, under the latency workload of (a) (32
// clients spread over a 100 ms upstream), interleaved round by round. For each: the added median and p99 over
// direct, each round's added median, the CPU per request, the main thread's own CPU and its wait for a core per
// request (from its schedstat, in nanoseconds: the steadier figure on a light load, "Twelfth pass"), and its
// context switches per request (voluntary: it went to wait for I/O; involuntary: the kernel took the core away),
// read from /proc.
// With bench/patches/cut-points.diff applied in a worktree, the variants answer at successive points of the path,
// so the differences between them say what each part of the path adds.
// Usage: npx tsx bench/hop-variants.ts   (each checkout built with `npx tsc -p tsconfig.build.json`)
// HOP_VARIANTS: `label=dir[:NAME=value...]` entries separated by `;` (default `proxy=.`, this checkout); the name
// NODE_ARGS gives that variant's node flags (space-separated) instead of an environment variable, and WARM_SEC its
// closed-loop warm-up in seconds (1 for every target otherwise), e.g. to age one proxy by hundreds of thousands of
// requests, as a full `npm run bench` has by its latency workload, beside a fresh one. Example:
//   HOP_VARIANTS='proxy=.;fast=/work/wt/cut:BENCH_CUT=fast;stgc=.:NODE_ARGS=--single-threaded-gc;aged=.:WARM_SEC=75'
// HOP_VARIANTS_FRAMING (length | chunked), HOP_VARIANTS_ROTATE (off), BENCH_ROUNDS (5), BENCH_DURATION_SEC (4),
// BENCH_LEAD_IN_SEC (0): seconds of the same load before each target's measured seconds in every round, counted in
// nothing, as `npm run bench` does with 2 (a hop that idled through the others' rounds pays for waking up first).

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cpuSeconds, mainThreadSched } from './cpu.js';
import { runLoad, runStaggered, type RequestSpec } from './load.js';
import { attachProxy, proxyEnv, repoRoot, startNodeHop, startSimulatorProcess, writeBenchCredentials, type ProxyProcess } from './servers.js';
import { median, Samples } from './stats.js';

interface Variant {
  label: string;
  dir: string;
  env: Record<string, string>;
}

function parseVariants(text: string): Variant[] {
  return text
    .split(';')
    .map((entry) => entry.trim())
    .filter(Boolean)
    .map((entry) => {
      const eq = entry.indexOf('=');
      if (eq <= 0) throw new Error(`HOP_VARIANTS entry "${entry}" is not label=dir[:NAME=value...]`);
      const [dir, ...pairs] = entry.slice(eq + 1).split(':');
      const env: Record<string, string> = {};
      for (const pair of pairs) {
        const i = pair.indexOf('=');
        if (i <= 0) throw new Error(`HOP_VARIANTS entry "${entry}": "${pair}" is not NAME=value`);
        env[pair.slice(0, i)] = pair.slice(i + 1);
      }
      return { label: entry.slice(0, eq), dir: resolve(repoRoot, dir), env };
    });
}

/** The main thread's voluntary and involuntary context switches so far (Linux; zeros elsewhere). */
function switches(pid: number): [number, number] {
  try {
    const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? 0);
    return [field('voluntary_ctxt_switches'), field('nonvoluntary_ctxt_switches')];
  } catch {
    return [0, 0];
  }
}

const variants = parseVariants(process.env.HOP_VARIANTS ?? 'proxy=.');
const framing = process.env.HOP_VARIANTS_FRAMING === 'chunked' ? 'chunked' : 'length';
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const seconds = Number(process.env.BENCH_DURATION_SEC ?? 4);
const leadInSec = Number(process.env.BENCH_LEAD_IN_SEC ?? 0);
const latencyMs = 100;

const homes: string[] = [];
const home = () => {
  const dir = mkdtempSync(join(tmpdir(), 'hop-variants-'));
  homes.push(dir);
  return dir;
};
const sim = await startSimulatorProcess();
await sim.setKnobs({ latencyMs: 0, jsonChunks: framing === 'chunked' ? 2 : undefined });
const credentialsPath = await writeBenchCredentials(home());
const headers = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
const body = (model: string) => JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello in a few words.' }] });
const targets = new Map<string, { spec: RequestSpec; pid: number; warmSec: number }>();
const proxies: ProxyProcess[] = [];
for (const v of variants) {
  const { NODE_ARGS: nodeArgs = '', WARM_SEC: warmSec = '1', ...variantEnv } = v.env;
  const env = { ...proxyEnv({ simulator: sim, credentialsPath, cliPath: '/bin/false', home: home(), logLevel: 'warn' }), ...variantEnv };
  const args = [...nodeArgs.split(' ').filter(Boolean), join(v.dir, 'dist', 'proxy', 'cli.js')];
  const proxy = await attachProxy(spawn(process.execPath, args, { cwd: v.dir, env, stdio: ['ignore', 'pipe', 'pipe'] }));
  proxies.push(proxy);
  targets.set(v.label, { spec: { base: proxy.url, path: '/api/v1/messages', headers, body: body('assistant-sonnet-4-20250514') }, pid: proxy.pid, warmSec: Number(warmSec) });
}
const hop = await startNodeHop(sim.url);
targets.set('node hop', { spec: { base: hop.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, pid: hop.pid, warmSec: 1 });
targets.set('direct', { spec: { base: sim.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, pid: NaN, warmSec: 1 });

for (const { spec, warmSec } of targets.values()) await runLoad(spec, { connections: 32, durationSec: warmSec });
await sim.setKnobs({ latencyMs });
const samples = new Map<string, Samples>();
const roundP50 = new Map<string, number[]>();
const cpu = new Map<string, number[]>();
const perRequestSwitches = new Map<string, Array<[number, number]>>();
/** Main thread, µs per request: [on a core, waiting for one], per round. */
const mainThread = new Map<string, Array<[number, number]>>();
// HOP_VARIANTS_ROTATE=1: round r starts at the r-th target (proxy, …, Node hop, direct, then around), so over a
// multiple of the targets' count every target is measured in every position alike; a position that costs (what
// ran just before, how long a target idled) then weighs on all of them, and its size is printed.
const rotate = ['1', 'true', 'on'].includes(process.env.HOP_VARIANTS_ROTATE ?? '');
const order = [...targets.entries()];
const positionP50 = new Map<string, number[][]>();
for (let r = 0; r < rounds; r++) {
  const shift = rotate ? r % order.length : 0;
  const roundOrder = [...order.slice(shift), ...order.slice(0, shift)];
  for (const [position, [label, { spec, pid }]] of roundOrder.entries()) {
    const measured = Number.isFinite(pid);
    if (leadInSec > 0) await runStaggered(spec, { connections: 32, durationSec: leadInSec, periodMs: latencyMs });
    const c0 = measured ? cpuSeconds(pid) : 0;
    const s0 = measured ? switches(pid) : [0, 0];
    const m0 = measured ? mainThreadSched(pid) : undefined;
    const res = await runStaggered(spec, { connections: 32, durationSec: seconds, periodMs: latencyMs });
    const n = res.ok + res.non2xx;
    if (res.non2xx || res.errors) console.log(`${label}: ${res.non2xx} non-2xx, ${res.errors} errors`);
    if (measured) {
      const s1 = switches(pid);
      const m1 = mainThreadSched(pid);
      (cpu.get(label) ?? cpu.set(label, []).get(label)!).push(((cpuSeconds(pid) - c0) * 1e6) / n);
      (mainThread.get(label) ?? mainThread.set(label, []).get(label)!).push([(m1.runNs - m0!.runNs) / 1000 / n, (m1.waitNs - m0!.waitNs) / 1000 / n]);
      (perRequestSwitches.get(label) ?? perRequestSwitches.set(label, []).get(label)!).push([(s1[0] - s0[0]) / n, (s1[1] - s0[1]) / n]);
    }
    (samples.get(label) ?? samples.set(label, new Samples()).get(label)!).pushAll(res.samples!);
    (roundP50.get(label) ?? roundP50.set(label, []).get(label)!).push(res.samples!.summary().p50);
    const byPosition = positionP50.get(label) ?? positionP50.set(label, order.map(() => [])).get(label)!;
    byPosition[position].push(roundP50.get(label)!.length - 1);
  }
}

const direct = samples.get('direct')!.summary();
const directRounds = roundP50.get('direct')!;
console.log(`added over direct, ${framing} answers, ${rounds} rounds of ${seconds} s (ms; CPU per request; main thread per request; context switches per request)`);
for (const label of targets.keys()) {
  if (label === 'direct') continue;
  const s = samples.get(label)!.summary();
  const perRound = roundP50.get(label)!.map((p, i) => (p - directRounds[i]).toFixed(2)).join(' ');
  const sw = perRequestSwitches.get(label)!;
  const main = mainThread.get(label)!;
  console.log(
    `${label.padEnd(12)} p50 +${(s.p50 - direct.p50).toFixed(2)}  p99 +${(s.p99 - direct.p99).toFixed(2)}  rounds ${perRound}  ` +
      `CPU ${median(cpu.get(label)!).toFixed(0)} µs  main thread ${median(main.map((x) => x[0])).toFixed(0)} µs (rounds ${main.map((x) => x[0].toFixed(0)).join(' ')}), waiting for a core ${median(main.map((x) => x[1])).toFixed(0)} µs  ` +
      `voluntary ${median(sw.map((x) => x[0])).toFixed(2)}  involuntary ${median(sw.map((x) => x[1])).toFixed(2)}`,
  );
}
if (rotate) {
  // Each position's mean added median over the targets measured there (round medians less direct's, by round).
  const added = (label: string, round: number) => roundP50.get(label)![round] - directRounds[round];
  const meanAdded = (pairs: Array<[string, number]>) => (pairs.length ? (pairs.reduce((sum, [label, round]) => sum + added(label, round), 0) / pairs.length).toFixed(2) : 'n/a');
  const measuredHops = [...positionP50.entries()].filter(([label]) => label !== 'direct');
  const at = (position: number) => measuredHops.flatMap(([label, byPosition]) => byPosition[position].map((round): [string, number] => [label, round]));
  console.log(`by position in the round (mean of round medians, ms): ${order.map((_, position) => `${position + 1}: ${meanAdded(at(position))}`).join('  ')}`);
  for (const [label, byPosition] of measuredHops) {
    console.log(`  ${label.padEnd(12)} ${byPosition.map((rounds, position) => `${position + 1}: ${meanAdded(rounds.map((round): [string, number] => [label, round]))}`).join('  ')}`);
  }
}
for (const proxy of proxies) await proxy.stop();
await hop.stop();
await sim.stop();
for (const dir of homes) rmSync(dir, { recursive: true, force: true });
