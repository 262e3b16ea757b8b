// Non-streaming workloads driven by autocannon, interleaved A B A B (proxy, direct, nginx, repeated):
//   (a) direct mode /api/v1/messages at each concurrency, unpaced (throughput), then at 32 concurrent with a fixed
//       upstream latency (added latency, measured where nothing saturates);
//   (c) the compat translation route /api/v1/chat/completions, not streaming (the streaming half is in
//       workload-streams.ts);
//   (f) the soak: >= 100,000 requests on a fresh proxy, RSS read after a warm-up and at the end.

import { baseKnobs, baseOf, compatSpec, nativeSpec, proxyRouteProblem, targets, type Bench } from './context.js';
import { runLoad, type LoadResult, type RequestSpec } from './load.js';
import type { Cell, Row, Target } from './report.js';
import { readRss, treeRss } from './rss.js';
import { median, Samples, type Summary } from './stats.js';

export interface Aggregate {
  rps: number;
  latency: Summary;
  /** non-2xx answers plus socket errors and timeouts, all rounds. */
  errors: number;
  rounds: Array<Omit<LoadResult, 'samples'>>;
}

const MB = 1024 * 1024;

function errorsOf(r: LoadResult): number {
  return r.non2xx + r.errors;
}

/** Runs `rounds` × (proxy, direct, nginx) loads; the proxy is skipped (and its cells say why) when `problem` is set. */
export async function interleavedLoad(
  b: Bench,
  specOf: (t: Target) => RequestSpec,
  load: { connections: number; durationSec?: number; amount?: number },
  problem: string | undefined,
  label: string,
): Promise<Record<Target, Aggregate | string>> {
  const merged = new Map<Target, { samples: Samples; rounds: LoadResult[] }>();
  for (let round = 0; round < b.cfg.rounds; round++) {
    for (const t of targets) {
      if (t === 'proxy' && problem) continue;
      b.log(`${label}: ${t}, round ${round + 1}/${b.cfg.rounds}`);
      const r = await runLoad(specOf(t), { ...load, keepSamples: true });
      const m = merged.get(t) ?? { samples: new Samples(), rounds: [] };
      m.samples.pushAll(r.samples!);
      m.rounds.push(r);
      merged.set(t, m);
    }
  }
  const out = {} as Record<Target, Aggregate | string>;
  for (const t of targets) {
    const m = merged.get(t);
    if (!m) {
      out[t] = problem ?? 'n/a';
      continue;
    }
    out[t] = {
      rps: median(m.rounds.map((r) => r.rps)),
      latency: m.samples.summary(),
      errors: m.rounds.reduce((n, r) => n + errorsOf(r), 0),
      rounds: m.rounds.map(({ samples: _samples, ...rest }) => rest),
    };
  }
  return out;
}

/** A row whose cells are one figure of each target's aggregate (or its n/a note). */
export function rowOf(
  workload: string,
  metric: string,
  unit: Row['unit'],
  agg: Record<Target, Aggregate | string>,
  pick: (a: Aggregate) => number,
  ratios = true,
): Row {
  const cells = {} as Record<Target, Cell>;
  for (const t of targets) {
    const a = agg[t];
    cells[t] = typeof a === 'string' ? a : pick(a);
  }
  return { workload, metric, unit, cells, ratios };
}

function standardRows(workload: string, agg: Record<Target, Aggregate | string>): Row[] {
  return [
    rowOf(workload, 'throughput', 'req/s', agg, (a) => a.rps),
    rowOf(workload, 'latency p50', 'ms', agg, (a) => a.latency.p50),
    rowOf(workload, 'latency p99', 'ms', agg, (a) => a.latency.p99),
    rowOf(workload, 'errors', 'count', agg, (a) => a.errors, false),
  ];
}

/** Cells of X minus direct: what a hop adds to the same request. */
function addedRow(workload: string, metric: string, agg: Record<Target, Aggregate | string>, pick: (s: Summary) => number): Row {
  const direct = agg.direct;
  const cells = {} as Record<Target, Cell>;
  for (const t of targets) {
    const a = agg[t];
    cells[t] = t === 'direct' ? 0 : typeof a === 'string' ? a : typeof direct === 'string' ? NaN : pick(a.latency) - pick(direct.latency);
  }
  return { workload, metric, unit: 'ms', cells, ratios: true };
}

export async function runRequestWorkloads(b: Bench): Promise<void> {
  const { cfg } = b;
  // (a) unpaced: each concurrency level, as fast as the slowest process allows.
  await b.sim.setKnobs(baseKnobs());
  const problemA = await proxyRouteProblem(nativeSpec(b, 'proxy', false));
  const rawA: Record<string, unknown> = {};
  for (const c of cfg.concurrency) {
    const agg = await interleavedLoad(b, (t) => nativeSpec(b, t, false), { connections: c, durationSec: cfg.durationSec }, problemA, `(a) c=${c}`);
    rawA[`c${c}`] = agg;
    b.rows.push(...standardRows(`(a) non-stream, ${c} conc.`, agg));
  }
  // (a) paced: a fixed upstream latency keeps the load below saturation, so latency differences are per-request
  // cost, not queueing behind a busy core.
  await b.sim.setKnobs({ ...baseKnobs(), latencyMs: cfg.upstreamLatencyMs });
  const paced = await interleavedLoad(
    b,
    (t) => nativeSpec(b, t, false),
    { connections: cfg.latencyConcurrency, durationSec: cfg.durationSec },
    problemA,
    `(a) paced c=${cfg.latencyConcurrency}`,
  );
  rawA.paced = paced;
  const wl = `(a) ${cfg.latencyConcurrency} conc., upstream +${cfg.upstreamLatencyMs} ms`;
  b.rows.push(
    rowOf(wl, 'latency p50', 'ms', paced, (a) => a.latency.p50),
    rowOf(wl, 'latency p99', 'ms', paced, (a) => a.latency.p99),
    addedRow(wl, 'added p50 vs direct', paced, (s) => s.p50),
    addedRow(wl, 'added p99 vs direct', paced, (s) => s.p99),
    rowOf(wl, 'errors', 'count', paced, (a) => a.errors, false),
  );
  b.raw.a = rawA;

  // (c) compat translation, not streaming. Direct and nginx serve the native equivalent (the simulator has no
  // compatible-format route): the ratio is the cost of the hop plus the translation.
  await b.sim.setKnobs(baseKnobs());
  const problemC = await proxyRouteProblem(compatSpec(b, false));
  const aggC = await interleavedLoad(
    b,
    (t) => (t === 'proxy' ? compatSpec(b, false) : nativeSpec(b, t, false)),
    { connections: cfg.latencyConcurrency, durationSec: cfg.durationSec },
    problemC,
    '(c) compat non-stream',
  );
  b.raw.cNonStream = aggC;
  b.rows.push(...standardRows(`(c) compat non-stream, ${cfg.latencyConcurrency} conc.`, aggC));
}

/** (f) The soak. Runs last: it restarts the proxy so its starting RSS is not the previous workloads' peak. */
export async function runSoak(b: Bench): Promise<void> {
  const { cfg } = b;
  await b.sim.setKnobs(baseKnobs());
  await b.restartProxy();
  const problem = await proxyRouteProblem(nativeSpec(b, 'proxy', false));
  const wl = `(f) soak, ${cfg.soakRequests.toLocaleString('en-US')} req, ${cfg.soakConcurrency} conc.`;
  const metrics = ['requests', 'errors', 'rps', 'start', 'end', 'growth'] as const;
  const cells = Object.fromEntries(metrics.map((m) => [m, {} as Record<Target, Cell>])) as Record<(typeof metrics)[number], Record<Target, Cell>>;
  const raw: Record<string, unknown> = {};
  for (const t of targets) {
    const skip = (t === 'proxy' && problem) || (t !== 'proxy' && !cfg.soakAllTargets);
    if (skip) {
      const why = t === 'proxy' ? problem! : 'not run (BENCH_SOAK_ALL_TARGETS=0)';
      for (const m of metrics) cells[m][t] = why;
      continue;
    }
    const spec = nativeSpec(b, t, false);
    const rssOf = t === 'proxy' ? () => readRss(b.proxy.pid)?.rss ?? NaN : t === 'nginx' ? () => treeRss(b.nginx.pid) : () => NaN;
    b.log(`(f) soak: ${t}, warm-up ${cfg.soakWarmup} requests`);
    await runLoad(spec, { connections: cfg.soakConcurrency, amount: cfg.soakWarmup });
    const start = rssOf();
    b.log(`(f) soak: ${t}, ${cfg.soakRequests} requests`);
    const r = await runLoad(spec, { connections: cfg.soakConcurrency, amount: cfg.soakRequests });
    const end = rssOf();
    const { samples: _s, ...rest } = r;
    raw[t] = { ...rest, rssStart: start, rssEnd: end, base: baseOf(b, t) };
    cells.requests[t] = r.ok + r.non2xx;
    cells.errors[t] = errorsOf(r);
    cells.rps[t] = r.rps;
    const noRss = t === 'direct' ? 'n/a (no hop)' : NaN;
    cells.start[t] = Number.isFinite(start) ? start / MB : noRss;
    cells.end[t] = Number.isFinite(end) ? end / MB : noRss;
    cells.growth[t] = Number.isFinite(start) && Number.isFinite(end) ? ((end - start) / start) * 100 : noRss;
  }
  b.raw.f = raw;
  b.rows.push(
    { workload: wl, metric: 'requests answered', unit: 'count', cells: cells.requests, ratios: false },
    { workload: wl, metric: 'errors', unit: 'count', cells: cells.errors, ratios: false },
    { workload: wl, metric: 'throughput', unit: 'req/s', cells: cells.rps, ratios: true },
    { workload: wl, metric: 'RSS after warm-up', unit: 'MB', cells: cells.start, ratios: false },
    { workload: wl, metric: 'RSS at end', unit: 'MB', cells: cells.end, ratios: false },
    { workload: wl, metric: 'RSS growth', unit: '%', cells: cells.growth, ratios: false },
  );
}
