// What grows in the soak (f): a fresh built proxy (dist/) against the simulator, the soak's native requests at 32
// connections, both answer framings alternating, with a heap snapshot (node --heapsnapshot-signal) and the RSS read
// after the warm-up and after each block of requests; then each snapshot's live objects by constructor, and what
// grew between the half and the end. Not part of `npm run bench`.
// Usage: SOAK_BLOCKS=4 BENCH_SOAK_REQUESTS=100000 npx tsx bench/soak-heap.ts   (4 blocks of 50,000: twice the soak)

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { nativeRequest, neutralModel } from './context.js';
import { runLoad } from './load.js';
import { readRss } from './procfs.js';
import { buildProxy, startProxyProcess, startSimulatorProcess, writeBenchCredentials } from './servers.js';

const half = Number(process.env.BENCH_SOAK_REQUESTS ?? 100_000) / 2;
const blocks = Number(process.env.SOAK_BLOCKS ?? 2);
const home = mkdtempSync(join(tmpdir(), 'soak-heap-'));
const snaps = join(home, 'snaps');
const sim = await startSimulatorProcess();
await sim.setKnobs({ latencyMs: 0, jsonChunks: 'alternate' });
const credentialsPath = await writeBenchCredentials(home);
const proxy = await startProxyProcess({
  build: buildProxy((l) => console.log(l)),
  simulator: sim,
  credentialsPath,
  cliPath: '/bin/false',
  home,
  logLevel: 'warn',
  nodeArgs: ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snaps}`],
  env: { METRICS_ENABLED: 'true' },
});
const spec = nativeRequest(proxy.url, '/api/v1/messages', neutralModel);

/** Live objects by constructor (count, self size) of a heap snapshot file. */
function census(file: string): Map<string, { count: number; size: number }> {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const f = snap.snapshot.meta.node_fields;
  const width = f.length;
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((n) => f.indexOf(n));
  const types = snap.snapshot.meta.node_types[0];
  const out = new Map<string, { count: number; size: number }>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]];
    const name = type === 'object' || type === 'closure' ? snap.strings[snap.nodes[i + nameAt]] : `(${type})`;
    const e = out.get(name) ?? { count: 0, size: 0 };
    e.count++;
    e.size += snap.nodes[i + sizeAt];
    out.set(name, e);
  }
  return out;
}

async function snapshot(label: string): Promise<Map<string, { count: number; size: number }>> {
  const before = new Set(readdirSync(snaps, { withFileTypes: false }).map(String));
  process.kill(proxy.pid, 'SIGUSR2');
  for (;;) {
    await new Promise((r) => setTimeout(r, 500));
    const files = readdirSync(snaps).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
    if (files.length > 0) {
      const file = join(snaps, files[0]);
      // Written when it parses (V8 collects garbage first, then writes it out).
      let c: ReturnType<typeof census> | undefined;
      while (!c) {
        try {
          c = census(file);
        } catch {
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
      const total = [...c.values()].reduce((a, e) => a + e.size, 0);
      console.log(
        `${label}: RSS ${((readRss(proxy.pid)?.rss ?? NaN) / 2 ** 20).toFixed(1)} MB, heap in snapshot ${(total / 2 ** 20).toFixed(1)} MB`,
      );
      if (process.env.SOAK_KEEP) renameSync(file, process.env.SOAK_KEEP);
      else rmSync(file);
      return c;
    }
  }
}

mkdirSync(snaps, { recursive: true });
await runLoad(spec, { connections: 32, amount: 5_000 });
const taken = [await snapshot('after warm-up')];
for (let i = 1; i <= blocks; i++) {
  const r = await runLoad(spec, { connections: 32, amount: half });
  console.log(
    `block ${i}: ${r.ok} ok, ${r.non2xx} non-2xx, ${r.errors} errors, ${(r.ok / r.seconds).toFixed(0)} req/s`,
  );
  taken.push(await snapshot(`after block ${i} (${(i * half).toLocaleString('en-US')} requests)`));
}
const diff = (a: Map<string, { count: number; size: number }>, b: Map<string, { count: number; size: number }>) =>
  [...b.entries()]
    .map(([name, e]) => ({ name, count: e.count - (a.get(name)?.count ?? 0), size: e.size - (a.get(name)?.size ?? 0) }))
    .sort((x, y) => y.size - x.size)
    .slice(0, 15);
for (let i = 1; i < taken.length; i++) {
  console.log(`grew from snapshot ${i - 1} to ${i} (constructor: count, self size KB):`);
  for (const d of diff(taken[i - 1], taken[i]))
    console.log(
      `  ${d.name.slice(0, 60).padEnd(60)} ${String(d.count).padStart(8)} ${(d.size / 1024).toFixed(1).padStart(10)}`,
    );
}
await proxy.stop();
await sim.stop();
rmSync(home, { recursive: true, force: true });
