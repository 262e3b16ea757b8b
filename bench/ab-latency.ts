// A/B of the added latency at 32 spread clients (the latency workload of (a), docs/benchmarks.md): two proxy builds
// in other checkouts (AB_A, AB_B: folders with dist/proxy/cli.js built and node_modules linked) against one
// simulator with a 100 ms upstream, interleaved A B direct in each round and B A direct in the next, so the machine's
// slow stretches fall on both. Prints each round's added median (p50 over direct's of the same round) and the median
// of the per-round differences B − A. Not part of `npm run bench`.
// Usage: AB_A=/tmp/ab/before AB_B=/tmp/ab/after AB_ROUNDS=12 npx tsx bench/ab-latency.ts

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeRequest, neutralModel, providerModel } from './context.js';
import { runStaggered, type RequestSpec } from './load.js';
import { proxyEnv, spawnProxy, startSimulatorProcess, writeBenchCredentials } from './servers.js';
import { median } from './stats.js';

const rounds = Number(process.env.AB_ROUNDS ?? 12);
const seconds = Number(process.env.BENCH_DURATION_SEC ?? 6);
const latencyMs = Number(process.env.BENCH_UPSTREAM_LATENCY_MS ?? 100);
const connections = Number(process.env.BENCH_LATENCY_CONCURRENCY ?? 32);
const home = mkdtempSync(join(tmpdir(), 'ab-latency-'));
const sim = await startSimulatorProcess();
const credentialsPath = await writeBenchCredentials(home);
const env = proxyEnv({ simulator: sim, credentialsPath, cliPath: '/bin/false', home, logLevel: 'warn' });
const start = (dir: string) => spawnProxy([join(dir, 'dist', 'proxy', 'cli.js')], env, dir);
const proxies = { A: await start(process.env.AB_A!), B: await start(process.env.AB_B!) };
const specs: Record<string, RequestSpec> = {
  A: nativeRequest(proxies.A.url, '/api/v1/messages', neutralModel),
  B: nativeRequest(proxies.B.url, '/api/v1/messages', neutralModel),
  direct: nativeRequest(sim.url, '/v1/messages', providerModel),
};
await sim.setKnobs({ latencyMs: 0 });
for (const spec of Object.values(specs)) await runStaggered(spec, { connections, durationSec: 2, periodMs: 10 });
await sim.setKnobs({ latencyMs });
const added: Record<'A' | 'B', number[]> = { A: [], B: [] };
for (let r = 0; r < rounds; r++) {
  const order = r % 2 === 0 ? (['A', 'B', 'direct'] as const) : (['B', 'A', 'direct'] as const);
  const p50: Record<string, number> = {};
  for (const name of order) {
    const res = await runStaggered(specs[name], { connections, durationSec: seconds, periodMs: latencyMs });
    if (res.non2xx || res.errors) console.log(name, 'errors', res.non2xx, res.errors);
    p50[name] = res.latency.p50;
  }
  added.A.push(p50.A - p50.direct);
  added.B.push(p50.B - p50.direct);
  console.log(
    `round ${r + 1} (${order.join(' ')}): added p50 A ${added.A[r].toFixed(2)} ms, B ${added.B[r].toFixed(2)} ms, B−A ${(added.B[r] - added.A[r]).toFixed(2)} ms`,
  );
}
const diffs = added.B.map((b, i) => b - added.A[i]);
console.log(
  `median added p50: A ${median(added.A).toFixed(2)} ms, B ${median(added.B).toFixed(2)} ms; median of B−A ${median(diffs).toFixed(2)} ms; B slower in ${diffs.filter((d) => d > 0).length} of ${rounds} rounds`,
);
await Promise.all([proxies.A.stop(), proxies.B.stop()]);
await sim.stop();
rmSync(home, { recursive: true, force: true });
