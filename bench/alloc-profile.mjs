// Allocation profile of a proxy under load (docs/benchmarks.md "Profiling"): preloaded with
//   BENCH_PROXY_NODE_ARGS="--import ./bench/alloc-profile.mjs"
// it runs V8's sampling heap profiler *including objects the GC already collected* (node's --heap-prof keeps only
// what is still alive at exit, which hides per-request garbage), and after ALLOC_PROFILE_MS (default 9000) writes
// ALLOC_PROFILE_DIR/alloc-<pid>.heapprofile (default the temporary directory). Summarise it with
// `npx tsx bench/profile-summary.ts <file>.heapprofile`. ALLOC_PROFILE_SURVIVORS=1 leaves out what a scavenge
// collected: what is left is what lived through the young generation into the old one (docs/benchmarks.md
// "Eighth pass"), the part that grows the heap under load and costs a mark-compact to free.
import { writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { setTimeout } from 'node:timers';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

const session = new inspector.Session();
session.connect();
const survivors = process.env.ALLOC_PROFILE_SURVIVORS === '1';
session.post('HeapProfiler.startSampling', { samplingInterval: 8192, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: !survivors });
setTimeout(() => {
  if (survivors) {
    // The young generation still holds the garbage of the last moments, never collected and so still sampled: two
    // scavenges first (the second empties what the first kept), leaving what did get promoted.
    v8.setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc');
    gc({ type: 'minor' });
    gc({ type: 'minor' });
  }
  session.post('HeapProfiler.stopSampling', (err, result) => {
    if (err) return void process.stderr.write(`alloc-profile: ${err.message}\n`);
    const file = join(process.env.ALLOC_PROFILE_DIR || tmpdir(), `alloc-${process.pid}.heapprofile`);
    writeFileSync(file, JSON.stringify(result.profile));
    process.stderr.write(`alloc-profile: written ${file}\n`);
  });
}, Number(process.env.ALLOC_PROFILE_MS || 9000)).unref();
