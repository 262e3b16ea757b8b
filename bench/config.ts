// Every knob of the benchmark, read once from the environment; docs/benchmarks.md "Settings" says what each means.
// Defaults give the full run; BENCH_QUICK=1 shrinks every duration and count to a smoke run (the second value of
// each `q(full, quick)`). Any single figure can still be overridden by its own variable.

import { nodeArgsOf, packageOf } from './servers.js';

export type Framing = 'length' | 'chunked';
export type BenchConfig = ReturnType<typeof loadBenchConfig>;
export const allWorkloads = ['a', 'b', 'c', 'd', 'e', 'f', 'l', 'p', 's', 'w', 'x', 'o', 'k'];

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a non-negative number, got "${raw}"`);
  return n;
}

/** A lower-case comma list, not empty, of items that match `item`. */
function list(name: string, fallback: string, item = /./, expected = 'a comma list'): string[] {
  const raw = process.env[name];
  const out = (raw || fallback)
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (!out.length || !out.every((s) => item.test(s))) throw new Error(`${name}: expected ${expected}, got "${raw}"`);
  return out;
}

const flag = (name: string, fallback: boolean): boolean =>
  ['', undefined].includes(process.env[name])
    ? fallback
    : ['1', 'true', 'yes', 'on'].includes(process.env[name]!.toLowerCase());

export function loadBenchConfig(resultsDir: string) {
  const quick = flag('BENCH_QUICK', false);
  const q = (full: number, small: number): number => (quick ? small : full);
  const ccr = list('BENCH_CCR', 'a,b');
  return {
    quick,
    /** Rounds of A B A B: each workload runs every target, then again, this many times. */
    rounds: num('BENCH_ROUNDS', 2),
    /** Rounds of (a)'s spread latency workload, the one the added-latency goals are judged on (its medians move). */
    latencyRounds: num('BENCH_LATENCY_ROUNDS', q(Math.max(8, num('BENCH_ROUNDS', 2)), 1)),
    durationSec: num('BENCH_DURATION_SEC', q(6, 1)),
    warmupSec: num('BENCH_WARMUP_SEC', q(3, 1)),
    /** Load before every interleaved round, counted only in the lead-in CPU row (docs/performance.md "First rounds"). */
    leadInSec: num('BENCH_LEAD_IN_SEC', q(2, 0)),
    concurrency: list('BENCH_CONCURRENCY', '1,32,256', /^[1-9]\d*$/, 'a comma list of positive integers').map(Number),
    /** 100 ms keeps the offered load (32 / 0.1 s) under what any hop serves: per-request cost, not queueing. */
    upstreamLatencyMs: num('BENCH_UPSTREAM_LATENCY_MS', 100),
    latencyConcurrency: num('BENCH_LATENCY_CONCURRENCY', 32),
    /** How the simulator frames a non-streamed answer: each a variant of every non-streamed workload. */
    framings: list('BENCH_FRAMINGS', 'length,chunked', /^(length|chunked)$/, 'length, chunked or both') as Framing[],
    jsonChunks: Math.max(1, num('BENCH_JSON_CHUNKS', 2)),
    streamChunks: num('BENCH_STREAM_CHUNKS', 200),
    streamIntervalMs: num('BENCH_STREAM_INTERVAL_MS', q(10, 5)),
    streamConcurrency: num('BENCH_STREAM_CONCURRENCY', q(16, 4)),
    cliDelayMs: num('BENCH_CLI_DELAY_MS', 300),
    cliTokenDelayMs: num('BENCH_CLI_TOKEN_DELAY_MS', 10),
    toolRequests: num('BENCH_TOOL_REQUESTS', q(12, 3)),
    openStreams: num('BENCH_OPEN_STREAMS', q(500, 100)),
    openStreamChunks: num('BENCH_OPEN_STREAM_CHUNKS', q(40, 10)),
    openStreamIntervalMs: num('BENCH_OPEN_STREAM_INTERVAL_MS', 200),
    soakRequests: num('BENCH_SOAK_REQUESTS', q(200_000, 5_000)),
    soakWarmup: num('BENCH_SOAK_WARMUP', q(5_000, 1_000)),
    soakConcurrency: num('BENCH_SOAK_CONCURRENCY', 32),
    soakAllTargets: flag('BENCH_SOAK_ALL_TARGETS', true),
    nginxWorkers: num('BENCH_NGINX_WORKERS', 1),
    proxyLogLevel: process.env.BENCH_PROXY_LOG_LEVEL || 'warn',
    /** Workloads where claude-code-router is a column; BENCH_CCR=none (0, off) does not start it at all. */
    ccrWorkloads: ['none', '0', 'off'].includes(ccr.join(',')) ? [] : ccr,
    only: list('BENCH_ONLY', allWorkloads.join(',')),
    // The proxy runs with the node flags `npm run serve` gives it, unless BENCH_PROXY_NODE_ARGS says otherwise.
    proxyNodeArgs: nodeArgsOf('BENCH_PROXY_NODE_ARGS', serveNodeFlags()),
    resultsDir: process.env.BENCH_RESULTS_DIR || resultsDir,
  };
}

/** The node flags of package.json's `serve` script (`node --flag scripts/serve.mjs`): what users run the proxy with. */
function serveNodeFlags(): string {
  return packageOf()!
    .scripts!.serve.split(/\s+/)
    .filter((word) => word.startsWith('--'))
    .join(' ');
}
