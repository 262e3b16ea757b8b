// Every knob of the benchmark, read once from the environment. Defaults give the full run (under ten minutes on
// two cores, soak of 100,000 requests as docs/benchmarks.md explains); BENCH_QUICK=1 shrinks every duration and count to a smoke
// run of about a minute. Any single figure can still be overridden by its own variable.

export type Framing = 'length' | 'chunked';

export interface BenchConfig {
  quick: boolean;
  /** Rounds of A B A B: each workload runs proxy, direct, nginx, then again, this many times. */
  rounds: number;
  /**
   * Rounds of the spread latency workload of (a), the one the added-latency goals are judged on: its medians are
   * about a millisecond and move by a third of that between rounds minutes apart, so it takes more rounds than
   * the throughput and CPU rows need (docs/benchmarks.md "Settings").
   */
  latencyRounds: number;
  /** Seconds of each autocannon measurement (one target, one round). */
  durationSec: number;
  /** Seconds each target is driven before anything is measured (JIT, connection pools). */
  warmupSec: number;
  /**
   * Seconds of load at the start of every interleaved round before its measurement, counted only in the lead-in
   * CPU row: a burst's first seconds pay once for what a hop gave back while idle (docs/performance.md "First
   * rounds"). 0: no lead-in.
   */
  leadInSec: number;
  /** Concurrency levels of workload (a). */
  concurrency: number[];
  /**
   * Fixed upstream latency (ms) of the paced latency measurement at 32 concurrent. 100 ms keeps the offered load
   * (32 / 0.1 s = 320 req/s) well under what any hop can serve here, so the difference to direct is per-request
   * cost rather than queueing; real model calls take seconds, so this is still a fast upstream.
   */
  upstreamLatencyMs: number;
  /** Concurrency of that paced measurement (the goal is stated at 32). */
  latencyConcurrency: number;
  /**
   * How the simulator frames a non-streamed answer, each a variant of every non-streamed workload: `length` (one
   * write with a content-length) and `chunked` (no content-length, chunked in `jsonChunks` writes, as behind a
   * re-chunking CDN). Providers answer both ways, and a hop may take a different path for each.
   */
  framings: Framing[];
  jsonChunks: number;
  /** Streaming workloads (b, c): chunks per response, pacing between chunks, streams open at once per round. */
  streamChunks: number;
  streamIntervalMs: number;
  streamConcurrency: number;
  /** Tool mode (d): fake CLI start-up delay, token pacing, and requests per target. */
  cliDelayMs: number;
  cliTokenDelayMs: number;
  toolRequests: number;
  /** Workload (e): streams held open at once, and how long each stays open. */
  openStreams: number;
  openStreamChunks: number;
  openStreamIntervalMs: number;
  /** Workload (f): requests of the soak, and of the warm-up before its starting RSS is read. */
  soakRequests: number;
  soakWarmup: number;
  soakConcurrency: number;
  /** Soak also driven through direct and nginx (for the throughput ratio); off saves time. */
  soakAllTargets: boolean;
  /** nginx worker processes; 1 by default, so it gets the same one core a Node process has. */
  nginxWorkers: number;
  /** Log level of the proxy under test (logging is part of its cost). */
  proxyLogLevel: string;
  /**
   * Workloads where claude-code-router (bench/ccr.ts) is a column: a subset of a, b, c, e, f; default a,b (its
   * native route, non-streamed and streamed). BENCH_CCR=none (or 0) does not start it at all.
   */
  ccrWorkloads: string[];
  /** Workloads to run (a..f, l: usage ledger on/off, p: warm CLI pool, s: start-up, w: weighted input tokens and follow-up turns); all by default. Partial runs are for profiling and never overwrite latest.*. */
  only: string[];
  /** Extra node arguments of the proxy process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`. */
  proxyNodeArgs: string[];
  /** Where latest.md / latest.json are written. */
  resultsDir: string;
}

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a non-negative number, got "${raw}"`);
  return n;
}

function list(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (!raw) return fallback;
  const out = raw.split(',').map((s) => Number(s.trim()));
  if (out.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`${name}: expected a comma list of positive integers, got "${raw}"`);
  return out;
}

function framings(raw: string | undefined): Framing[] {
  const out = (raw || 'length,chunked')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
  if (out.length === 0 || out.some((f) => f !== 'length' && f !== 'chunked'))
    throw new Error(`BENCH_FRAMINGS: expected length, chunked or both, got "${raw}"`);
  return out as Framing[];
}

function flag(name: string, fallback: boolean): boolean {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  return ['1', 'true', 'yes', 'on'].includes(raw.toLowerCase());
}

export function loadBenchConfig(resultsDir: string): BenchConfig {
  const quick = flag('BENCH_QUICK', false);
  return {
    quick,
    rounds: num('BENCH_ROUNDS', 2),
    latencyRounds: num('BENCH_LATENCY_ROUNDS', quick ? 1 : Math.max(8, num('BENCH_ROUNDS', 2))),
    durationSec: num('BENCH_DURATION_SEC', quick ? 1 : 6),
    warmupSec: num('BENCH_WARMUP_SEC', quick ? 1 : 3),
    leadInSec: num('BENCH_LEAD_IN_SEC', quick ? 0 : 2),
    concurrency: list('BENCH_CONCURRENCY', [1, 32, 256]),
    upstreamLatencyMs: num('BENCH_UPSTREAM_LATENCY_MS', 100),
    latencyConcurrency: num('BENCH_LATENCY_CONCURRENCY', 32),
    framings: framings(process.env.BENCH_FRAMINGS),
    jsonChunks: Math.max(1, num('BENCH_JSON_CHUNKS', 2)),
    streamChunks: num('BENCH_STREAM_CHUNKS', 200),
    streamIntervalMs: num('BENCH_STREAM_INTERVAL_MS', quick ? 5 : 10),
    streamConcurrency: num('BENCH_STREAM_CONCURRENCY', quick ? 4 : 16),
    cliDelayMs: num('BENCH_CLI_DELAY_MS', 300),
    cliTokenDelayMs: num('BENCH_CLI_TOKEN_DELAY_MS', 10),
    toolRequests: num('BENCH_TOOL_REQUESTS', quick ? 3 : 12),
    openStreams: num('BENCH_OPEN_STREAMS', quick ? 100 : 500),
    openStreamChunks: num('BENCH_OPEN_STREAM_CHUNKS', quick ? 10 : 40),
    openStreamIntervalMs: num('BENCH_OPEN_STREAM_INTERVAL_MS', 200),
    soakRequests: num('BENCH_SOAK_REQUESTS', quick ? 5_000 : 100_000),
    soakWarmup: num('BENCH_SOAK_WARMUP', quick ? 1_000 : 5_000),
    soakConcurrency: num('BENCH_SOAK_CONCURRENCY', 32),
    soakAllTargets: flag('BENCH_SOAK_ALL_TARGETS', true),
    nginxWorkers: num('BENCH_NGINX_WORKERS', 1),
    proxyLogLevel: process.env.BENCH_PROXY_LOG_LEVEL || 'warn',
    ccrWorkloads: ['none', '0', 'off'].includes((process.env.BENCH_CCR ?? '').trim().toLowerCase())
      ? []
      : (process.env.BENCH_CCR || 'a,b')
          .split(',')
          .map((s) => s.trim().toLowerCase())
          .filter(Boolean),
    only: (process.env.BENCH_ONLY || 'a,b,c,d,e,f,l,p,s,w,k')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
    proxyNodeArgs: (process.env.BENCH_PROXY_NODE_ARGS || '').split(/\s+/).filter(Boolean),
    resultsDir: process.env.BENCH_RESULTS_DIR || resultsDir,
  };
}
