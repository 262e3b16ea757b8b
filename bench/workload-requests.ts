// Non-streaming workloads driven by autocannon, interleaved A B A B (proxy, direct, nginx, repeated):
//   (a) direct mode /api/v1/messages at each concurrency, unpaced (throughput), then at 32 concurrent with a fixed
//       upstream latency (added latency, measured where nothing saturates);
//   (c) the compat translation route /api/v1/chat/completions, not streaming (the streaming half is in
//       workload-streams.ts);
//   (f) the soak: >= 100,000 requests on a fresh proxy, RSS read after a warm-up and at the end.
// Every one of them with the provider's answer framed both ways (BENCH_FRAMINGS): with a content-length, and chunked
// without one; (a) and (c) measure each framing as its own variant, interleaved round by round, and the soak
// alternates them answer by answer.

import {
  baseKnobs,
  baseOf,
  ccrProblem,
  compatSpec,
  hopCpu,
  nativeSpec,
  proxyRouteProblem,
  roundOrder,
  targets,
  type Bench,
  type Skips,
} from './context.js';
import { runLoad, runStaggered, type LoadResult, type RequestSpec } from './load.js';
import type { Framing } from './config.js';
import type { Cell, Row, Target } from './report.js';
import { machineTicks } from './cpu.js';
import { readRss, treeRss } from './rss.js';
import { median, Samples, type Summary } from './stats.js';

export interface Aggregate {
  rps: number;
  /** CPU time of the hop (proxy, Node hop, ccr or nginx process) per answered request, µs; NaN for direct. */
  cpuPerRequestUs: number;
  /** The same in the rounds' lead-ins (the first seconds of each burst, not in any other figure); NaN without. */
  leadInCpuPerRequestUs: number;
  latency: Summary;
  /** non-2xx answers plus socket errors and timeouts, all rounds. */
  errors: number;
  rounds: Array<Omit<LoadResult, 'samples'> & RoundExtra>;
}

/**
 * Per round: its own latency median and p99 (ms), the hop's CPU per request (µs), and how busy the whole machine
 * was (share of all cores' time not idle, everything included: load generator, simulator, hop, and whatever else
 * runs on this shared machine). Kept to explain why added latency moves between rounds and runs.
 */
interface RoundExtra {
  p50: number;
  p99: number;
  cpuPerRequestUs: number;
  /** In this round's lead-in (NaN without one). */
  leadInCpuPerRequestUs: number;
  machineBusy: number;
}

const MB = 1024 * 1024;

function errorsOf(r: LoadResult): number {
  return r.non2xx + r.errors;
}

/** The simulator's knob for an answer framing (the rest of the workload's knobs stay as set). */
export function framingKnobs(b: Bench, f: Framing): { jsonChunks: number | undefined } {
  return { jsonChunks: f === 'chunked' ? b.cfg.jsonChunks : undefined };
}

/** How a row names a framing. */
export function framingLabel(f: Framing): string {
  return f === 'length' ? 'answer with a length' : 'answer chunked';
}

/** The raw key of a workload's variant: the plain key for answers with a length (as before framings existed). */
export function framingKey(key: string, f: Framing): string {
  return f === 'length' ? key : `${key}Chunked`;
}

/**
 * Runs `rounds` × framings × (proxy, Node hop, direct, nginx, ccr: roundOrder) loads, the simulator's framing set
 * before each framing's loads, so both framings see the machine in the same state; a target in `skips` is left out
 * and its cells say why.
 */
export async function interleavedLoad(
  b: Bench,
  specOf: (t: Target) => RequestSpec,
  load: { connections: number; durationSec?: number; amount?: number; staggerMs?: number; rounds?: number },
  skips: Skips,
  label: string,
  framings: Framing[] = b.cfg.framings,
): Promise<Record<Framing, Record<Target, Aggregate | string>>> {
  const merged = new Map<
    string,
    { samples: Samples; rounds: Array<LoadResult & RoundExtra>; cpu: number; leadInCpu: number; leadInAnswered: number }
  >();
  const rounds = load.rounds ?? b.cfg.rounds;
  /** The round's lead-in (b.cfg.leadInSec, no samples kept) or its measured load. */
  const run = (t: Target, measured: boolean) => {
    const durationSec = measured ? (load.durationSec ?? 5) : b.cfg.leadInSec;
    if (load.staggerMs !== undefined)
      return runStaggered(specOf(t), { connections: load.connections, durationSec, periodMs: load.staggerMs });
    return runLoad(
      specOf(t),
      measured ? { ...load, keepSamples: true } : { connections: load.connections, durationSec },
    );
  };
  for (let round = 0; round < rounds; round++) {
    for (const f of framings) {
      await b.sim.setKnobs(framingKnobs(b, f));
      for (const t of roundOrder) {
        if (skips[t]) continue;
        b.log(`${label}, ${f}: ${t}, round ${round + 1}/${rounds}`);
        const key = `${f} ${t}`;
        const m = merged.get(key) ?? { samples: new Samples(), rounds: [], cpu: 0, leadInCpu: 0, leadInAnswered: 0 };
        // The lead-in: the round's first seconds of the same load, timed and counted in nothing but its own CPU
        // figure. A hop idle through the other targets' rounds may have given memory back to the system (the
        // proxy's V8 shrinks its young generation when idle, docs/performance.md "First rounds"); the first seconds
        // of a burst then pay for growing it again, a cost per burst, not per request, which would otherwise land
        // in the round's per-request figures in proportion to how short the round is.
        let leadInCpuPerRequestUs = NaN;
        if (b.cfg.leadInSec > 0) {
          const c0 = hopCpu(b, t);
          const lead = await run(t, false);
          const leadCpu = hopCpu(b, t) - c0;
          const answered = lead.ok + lead.non2xx;
          leadInCpuPerRequestUs = (leadCpu / Math.max(1, answered)) * 1e6;
          m.leadInCpu += leadCpu;
          m.leadInAnswered += answered;
        }
        const cpu0 = hopCpu(b, t);
        const m0 = machineTicks();
        const r = await run(t, true);
        const cpu = hopCpu(b, t) - cpu0;
        const m1 = machineTicks();
        m.cpu += cpu;
        m.samples.pushAll(r.samples!);
        const own = new Samples();
        own.pushAll(r.samples!);
        const sum = own.summary();
        m.rounds.push({
          ...r,
          p50: sum.p50,
          p99: sum.p99,
          cpuPerRequestUs: (cpu / Math.max(1, r.ok + r.non2xx)) * 1e6,
          leadInCpuPerRequestUs,
          machineBusy: (m1.busy - m0.busy) / (m1.total - m0.total),
        });
        merged.set(key, m);
      }
    }
  }
  await b.sim.setKnobs(framingKnobs(b, 'length'));
  const out = {} as Record<Framing, Record<Target, Aggregate | string>>;
  for (const f of framings) {
    out[f] = {} as Record<Target, Aggregate | string>;
    for (const t of targets) {
      const m = merged.get(`${f} ${t}`);
      if (!m) {
        out[f][t] = skips[t] ?? 'n/a';
        continue;
      }
      const answered = m.rounds.reduce((n, r) => n + r.ok + r.non2xx, 0);
      out[f][t] = {
        rps: median(m.rounds.map((r) => r.rps)),
        cpuPerRequestUs: (m.cpu / answered) * 1e6,
        leadInCpuPerRequestUs: m.leadInAnswered > 0 ? (m.leadInCpu / m.leadInAnswered) * 1e6 : NaN,
        latency: m.samples.summary(),
        errors: m.rounds.reduce((n, r) => n + errorsOf(r), 0),
        rounds: m.rounds.map(({ samples: _samples, ...rest }) => rest),
      };
    }
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
    cpuRow(workload, agg),
    ...leadInCpuRows(workload, agg),
    rowOf(workload, 'errors', 'count', agg, (a) => a.errors, false),
  ];
}

/** CPU of the hop per request: independent of how the two cores were shared, unlike throughput. */
function cpuRow(workload: string, agg: Record<Target, Aggregate | string>): Row {
  const row = rowOf(workload, 'hop CPU per request (µs)', 'count', agg, (a) => a.cpuPerRequestUs);
  row.cells.direct = 'n/a (no hop)';
  row.ratios = true;
  return row;
}

/**
 * CPU of the hop per request in the rounds' lead-ins: what a burst's first seconds cost, shown beside the figure
 * above rather than folded into it. No row in a run without lead-ins (BENCH_LEAD_IN_SEC=0).
 */
function leadInCpuRows(workload: string, agg: Record<Target, Aggregate | string>): Row[] {
  const row = rowOf(workload, 'hop CPU per request in the lead-ins (µs)', 'count', agg, (a) => a.leadInCpuPerRequestUs);
  if (!Object.values(row.cells).some((c) => typeof c === 'number' && Number.isFinite(c))) return [];
  row.cells.direct = 'n/a (no hop)';
  return [row];
}

/** Cells of X minus direct: what a hop adds to the same request. */
function addedRow(
  workload: string,
  metric: string,
  agg: Record<Target, Aggregate | string>,
  pick: (s: Summary) => number,
): Row {
  const direct = agg.direct;
  const cells = {} as Record<Target, Cell>;
  for (const t of targets) {
    const a = agg[t];
    cells[t] =
      t === 'direct'
        ? 0
        : typeof a === 'string'
          ? a
          : typeof direct === 'string'
            ? NaN
            : pick(a.latency) - pick(direct.latency);
  }
  return { workload, metric, unit: 'ms', cells, ratios: true };
}

export async function runRequestWorkloads(b: Bench, runA = true, runC = true): Promise<void> {
  if (runA) await runDirectNonStreaming(b);
  if (runC) await runCompatNonStreaming(b);
}

async function runDirectNonStreaming(b: Bench): Promise<void> {
  const { cfg } = b;
  // (a) unpaced: each concurrency level, as fast as the slowest process allows.
  await b.sim.setKnobs(baseKnobs());
  const skipsA: Skips = {
    proxy: await proxyRouteProblem(nativeSpec(b, 'proxy', false)),
    ccr: await ccrProblem(b, 'a', false),
  };
  const rawA: Record<string, unknown> = {};
  for (const c of cfg.concurrency) {
    const byFraming = await interleavedLoad(
      b,
      (t) => nativeSpec(b, t, false),
      { connections: c, durationSec: cfg.durationSec },
      skipsA,
      `(a) c=${c}`,
    );
    for (const f of cfg.framings) {
      rawA[framingKey(`c${c}`, f)] = byFraming[f];
      b.rows.push(...standardRows(`(a) non-stream, ${c} conc., ${framingLabel(f)}`, byFraming[f]));
    }
  }
  // (a) paced: a fixed upstream latency keeps the load below saturation, so the difference to direct is what one
  // request gains by passing the hop. Measured twice: clients spread over the round trip (independent clients),
  // and autocannon's clients all in lock step (bursts of N simultaneous requests every round trip).
  await b.sim.setKnobs({ ...baseKnobs(), latencyMs: cfg.upstreamLatencyMs });
  const n = cfg.latencyConcurrency;
  for (const [key, label, staggerMs] of [
    ['paced', `(a) ${n} conc. spread, upstream +${cfg.upstreamLatencyMs} ms`, cfg.upstreamLatencyMs],
    ['pacedBurst', `(a) ${n} conc. in lock step, upstream +${cfg.upstreamLatencyMs} ms`, undefined],
  ] as const) {
    const rounds = key === 'paced' ? cfg.latencyRounds : cfg.rounds;
    const byFraming = await interleavedLoad(
      b,
      (t) => nativeSpec(b, t, false),
      { connections: n, durationSec: cfg.durationSec, staggerMs, rounds },
      skipsA,
      `(a) ${key}`,
    );
    for (const f of cfg.framings) {
      const agg = byFraming[f];
      const wl = `${label}, ${framingLabel(f)}`;
      rawA[framingKey(key, f)] = agg;
      b.rows.push(
        rowOf(wl, 'latency p50', 'ms', agg, (a) => a.latency.p50),
        rowOf(wl, 'latency p99', 'ms', agg, (a) => a.latency.p99),
        addedRow(wl, 'added p50 vs direct', agg, (s) => s.p50),
        addedRow(wl, 'added p99 vs direct', agg, (s) => s.p99),
        cpuRow(wl, agg),
        rowOf(wl, 'errors', 'count', agg, (a) => a.errors, false),
      );
    }
  }
  b.raw.a = rawA;
}

async function runCompatNonStreaming(b: Bench): Promise<void> {
  const { cfg } = b;
  // (c) compat translation, not streaming. Direct and nginx serve the native equivalent (the simulator has no
  // compatible-format route): the ratio is the cost of the hop plus the translation. The proxy asks the provider
  // for a stream here (docs/direct-mode.md), so the framing changes only the other columns' answers.
  await b.sim.setKnobs(baseKnobs());
  const skipsC: Skips = { proxy: await proxyRouteProblem(compatSpec(b, false)), ccr: await ccrProblem(b, 'c', false) };
  const byFraming = await interleavedLoad(
    b,
    (t) => (t === 'proxy' ? compatSpec(b, false) : nativeSpec(b, t, false)),
    { connections: cfg.latencyConcurrency, durationSec: cfg.durationSec },
    skipsC,
    '(c) compat non-stream',
  );
  for (const f of cfg.framings) {
    b.raw[framingKey('cNonStream', f)] = byFraming[f];
    b.rows.push(
      ...standardRows(`(c) compat non-stream, ${cfg.latencyConcurrency} conc., ${framingLabel(f)}`, byFraming[f]),
    );
  }
}

/**
 * (f) The soak. Runs last, on a fresh proxy, so its starting RSS is not the previous workloads' peak. It runs in two
 * halves with RSS read after the warm-up, at half and at the end: growth in the first half is mostly the V8 heap
 * settling at its working size; growth that continues in the second half is what a leak looks like.
 */
export async function runSoak(b: Bench): Promise<void> {
  const { cfg } = b;
  // Both framings in one soak, answer by answer, so a leak on either body path shows.
  await b.sim.setKnobs({
    ...baseKnobs(),
    jsonChunks: cfg.framings.length === 2 ? 'alternate' : framingKnobs(b, cfg.framings[0]).jsonChunks,
  });
  await b.restartProxy();
  const skips: Skips = {
    proxy: await proxyRouteProblem(nativeSpec(b, 'proxy', false)),
    ccr: await ccrProblem(b, 'f', false),
  };
  const framed =
    cfg.framings.length === 2 ? 'answers alternately with a length and chunked' : framingLabel(cfg.framings[0]);
  const wl = `(f) soak, ${cfg.soakRequests.toLocaleString('en-US')} req, ${cfg.soakConcurrency} conc., ${framed}`;
  const metrics = ['requests', 'errors', 'rps', 'start', 'half', 'end', 'growth', 'growth2'] as const;
  const cells = Object.fromEntries(metrics.map((m) => [m, {} as Record<Target, Cell>])) as Record<
    (typeof metrics)[number],
    Record<Target, Cell>
  >;
  const raw: Record<string, unknown> = {};
  const pct = (from: number, to: number): number => ((to - from) / from) * 100;
  for (const t of targets) {
    const why = skips[t] ?? (t !== 'proxy' && !cfg.soakAllTargets ? 'not run (BENCH_SOAK_ALL_TARGETS=0)' : undefined);
    if (why) {
      for (const m of metrics) cells[m][t] = why;
      continue;
    }
    const spec = nativeSpec(b, t, false);
    const ccrPid = typeof b.ccr === 'string' ? undefined : b.ccr.pid;
    const rssOf =
      t === 'proxy'
        ? () => readRss(b.proxy.pid)?.rss ?? NaN
        : t === 'node'
          ? () => readRss(b.nodeHop.pid)?.rss ?? NaN
          : t === 'ccr' && ccrPid !== undefined
            ? () => treeRss(ccrPid)
            : t === 'nginx'
              ? () => treeRss(b.nginx.pid)
              : () => NaN;
    b.log(`(f) soak: ${t}, warm-up ${cfg.soakWarmup} requests`);
    await runLoad(spec, { connections: cfg.soakConcurrency, amount: cfg.soakWarmup });
    const start = rssOf();
    const firstHalf = Math.floor(cfg.soakRequests / 2);
    b.log(`(f) soak: ${t}, ${cfg.soakRequests} requests`);
    const r1 = await runLoad(spec, { connections: cfg.soakConcurrency, amount: firstHalf });
    const half = rssOf();
    const r2 = await runLoad(spec, { connections: cfg.soakConcurrency, amount: cfg.soakRequests - firstHalf });
    const end = rssOf();
    const answered = r1.ok + r1.non2xx + r2.ok + r2.non2xx;
    const errors = errorsOf(r1) + errorsOf(r2);
    const rps = (r1.ok + r2.ok) / (r1.seconds + r2.seconds);
    raw[t] = {
      answered,
      errors,
      rps,
      ok: r1.ok + r2.ok,
      statusCodes: [r1.statusCodes, r2.statusCodes],
      rssStart: start,
      rssHalf: half,
      rssEnd: end,
      base: baseOf(b, t),
    };
    cells.requests[t] = answered;
    cells.errors[t] = errors;
    cells.rps[t] = rps;
    const noRss = t === 'direct' ? 'n/a (no hop)' : NaN;
    const mb = (v: number): Cell => (Number.isFinite(v) ? v / MB : noRss);
    cells.start[t] = mb(start);
    cells.half[t] = mb(half);
    cells.end[t] = mb(end);
    cells.growth[t] = Number.isFinite(start) && Number.isFinite(end) ? pct(start, end) : noRss;
    cells.growth2[t] = Number.isFinite(half) && Number.isFinite(end) ? pct(half, end) : noRss;
  }
  b.raw.f = raw;
  const row = (metric: string, unit: Row['unit'], c: Record<Target, Cell>, ratios = false): Row => ({
    workload: wl,
    metric,
    unit,
    cells: c,
    ratios,
  });
  b.rows.push(
    row('requests answered', 'count', cells.requests),
    row('errors', 'count', cells.errors),
    row('throughput', 'req/s', cells.rps, true),
    row('RSS after warm-up', 'MB', cells.start),
    row('RSS at half', 'MB', cells.half),
    row('RSS at end', 'MB', cells.end),
    row('RSS growth, whole soak', '%', cells.growth),
    row('RSS growth, second half', '%', cells.growth2),
  );
}
