// Event-loop stalls and garbage collection of a hop, second by second (docs/benchmarks.md "Fifth pass"): preloaded
// into the proxy or the Node hop with BENCH_PROXY_NODE_ARGS / BENCH_HOP_NODE_ARGS="--import ./bench/loop-monitor.mjs",
// it appends one JSON line a second to loop-<script>-<pid>.jsonl in the temporary directory (LOOP_MONITOR_DIR, else
// TMPDIR, else /tmp; the Node hop runs with a small environment of its own, so /tmp): the event loop's delay
// p50, p99 and max (perf_hooks, 1 ms resolution), the collections in that second and their total pause, each pause
// of 1 ms or more with its kind (1 scavenge, 4 mark-compact, 8 incremental), and the RSS. A stall that lines up
// with a round's p99 says whether the tail is the hop's own pause or the machine's.
import { appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { monitorEventLoopDelay, performance, PerformanceObserver } from 'node:perf_hooks';
import process from 'node:process';
import { setInterval } from 'node:timers';

const file = join(process.env.LOOP_MONITOR_DIR || tmpdir(), `loop-${basename(process.argv[1] ?? 'node')}-${process.pid}.jsonl`);
const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();
const pauses = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) pauses.push({ at: Math.round(performance.timeOrigin + e.startTime), kind: e.detail?.kind, ms: +e.duration.toFixed(2) });
}).observe({ entryTypes: ['gc'] });
const ms = (ns) => +(ns / 1e6).toFixed(2);
setInterval(() => {
  const line = {
    t: Date.now(),
    p50: ms(delay.percentile(50)),
    p99: ms(delay.percentile(99)),
    max: ms(delay.max),
    gcCount: pauses.length,
    gcMs: +pauses.reduce((sum, p) => sum + p.ms, 0).toFixed(1),
    longPauses: pauses.filter((p) => p.ms >= 1),
    rssMb: Math.round(process.memoryUsage.rss() / 1e6),
  };
  appendFileSync(file, JSON.stringify(line) + '\n');
  delay.reset();
  pauses.length = 0;
}, 1000).unref();
