// Steps per request of a hop (docs/benchmarks.md "Fifth pass"): preloaded into the proxy or the Node hop with
//   BENCH_PROXY_NODE_ARGS="--import ./bench/async-count.mjs"   (BENCH_HOP_NODE_ARGS for the hop)
// it counts the asynchronous resources each request creates (promises, nextTicks, timers, immediates, through
// async_hooks) after a warm-up, and when the process exits writes their number per request to
// async-count-<script>-<pid>.json in the temporary directory. The bench starts both hops with a small environment
// of its own (bench/servers.ts), so the defaults apply there: a warm-up of 2,000 requests (ASYNC_COUNT_SKIP) and
// /tmp (ASYNC_COUNT_DIR, TMPDIR). The hook itself slows every promise: run it for the counts, never beside a timing.
import { createHook } from 'node:async_hooks';
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import process from 'node:process';

const skip = Number(process.env.ASYNC_COUNT_SKIP || 2000);
const counts = {};
let requests = 0;
createHook({
  init(_id, type) {
    if (requests > skip) counts[type] = (counts[type] ?? 0) + 1;
  },
}).enable();
dc.subscribe('http.server.request.start', () => requests++);
process.on('exit', () => {
  const counted = Math.max(0, requests - skip);
  const perRequest = Object.fromEntries(Object.entries(counts).map(([type, n]) => [type, +(n / Math.max(1, counted)).toFixed(2)]));
  const file = join(process.env.ASYNC_COUNT_DIR || tmpdir(), `async-count-${basename(process.argv[1] ?? 'node')}-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ requests: counted, perRequest }, null, 1));
  process.stderr.write(`async-count: ${counted} requests, written to ${file}\n`);
});
