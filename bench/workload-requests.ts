// Non-streaming workloads (docs/benchmarks.md "What is measured"): (a) and (c) interleaved round by round, each
// answer framing (BENCH_FRAMINGS) a variant of its own; (f) the soak, which alternates them answer by answer.

import type { Framing } from './config.js';
import { baseKnobs, compatSpec, hopCpu, hopRss, nativeSpec, roundOrder, skipsOf } from './context.js';
import type { Bench, Skips } from './context.js';
import { median, runLoad, runStaggered, summarize, type LoadResult, type RequestSpec, type Summary } from './load.js';
import { machineTicks, perRequestUs } from './procfs.js';
import { cellsOf, row, rowsOf, targets, type Metric, type Row, type Target } from './report.js';

export interface Aggregate {
  rps: number;
  /** CPU time of the hop (proxy, Node hop, ccr or nginx process) per answered request, µs; NaN for direct. */
  cpuPerRequestUs: number;
  /** The same in the rounds' lead-ins (the first seconds of each burst, not in any other figure); NaN without. */
  leadInCpuPerRequestUs: number;
  latency: Summary;
  /** non-2xx answers plus socket errors and timeouts, all rounds. */
  errors: number;
  /**
   * Per round: its own latency median and p99 (ms), the hop's CPU per request (µs), and how busy the whole machine
   * was (share of all cores' time not idle, whatever else runs on this shared machine included). Kept to explain
   * why added latency moves between rounds and runs.
   */
  rounds: Array<
    Omit<LoadResult, 'samples' | 'latency'> &
      Record<'p50' | 'p99' | 'cpuPerRequestUs' | 'leadInCpuPerRequestUs' | 'machineBusy', number>
  >;
}
type PerTarget = Record<Target, Aggregate | string>;

const framingKnobs = (b: Bench, f: Framing) => ({ jsonChunks: f === 'chunked' ? b.cfg.jsonChunks : undefined });
const framingLabel = (f: Framing): string => (f === 'length' ? 'answer with a length' : 'answer chunked');
/** The raw key of a workload's variant: the plain key for answers with a length (as before framings existed). */
const framingKey = (key: string, f: Framing): string => (f === 'length' ? key : `${key}Chunked`);

/**
 * Runs `rounds` × framings × roundOrder loads, so both framings see the machine in the same state; a target in `skips`
 * is left out and its cells say why. Each framing's figures go into `raw[framingKey(key)]`, its `rows` to the report.
 */
async function interleavedLoad(
  b: Bench,
  specOf: (t: Target) => RequestSpec,
  load: { connections: number; durationSec: number; staggerMs?: number; rounds?: number },
  skips: Skips,
  [label, key, wl]: [string, string, string],
  raw: Record<string, unknown>,
  rows: (wl: string, agg: PerTarget) => Row[] = (wl, agg) => standardRows(b, wl, agg),
): Promise<void> {
  const merged = new Map<string, { samples: number[]; rounds: Aggregate['rounds']; cpu: number; leadIn: number[] }>();
  const rounds = load.rounds ?? b.cfg.rounds;
  const run = (t: Target, durationSec: number) =>
    load.staggerMs !== undefined
      ? runStaggered(specOf(t), { connections: load.connections, durationSec, periodMs: load.staggerMs })
      : runLoad(specOf(t), { connections: load.connections, durationSec });
  /** The hop's CPU seconds, and the requests answered, of one load. */
  const measured = async (t: Target, durationSec: number) => {
    const [c0, m0] = [hopCpu(b, t), machineTicks()];
    const r = await run(t, durationSec);
    const m1 = machineTicks();
    return { r, cpu: hopCpu(b, t) - c0, answered: r.ok + r.non2xx, busy: (m1.busy - m0.busy) / (m1.total - m0.total) };
  };
  for (let round = 0; round < rounds; round++) {
    for (const f of b.cfg.framings) {
      await b.sim.setKnobs(framingKnobs(b, f));
      for (const t of roundOrder.filter((x) => !skips[x])) {
        b.log(`${label}, ${f}: ${t}, round ${round + 1}/${rounds}`);
        const m = merged.get(`${f} ${t}`) ?? { samples: [], rounds: [], cpu: 0, leadIn: [0, 0] };
        merged.set(`${f} ${t}`, m);
        // The lead-in: the round's first seconds of the same load, counted in nothing but its own CPU figure. A hop
        // idle through the other targets' rounds may have given memory back (the proxy's V8 shrinks its young
        // generation when idle, docs/performance.md "First rounds"); the first seconds of a burst then pay for
        // growing it again, a cost per burst, not per request.
        const lead = b.cfg.leadInSec > 0 ? await measured(t, b.cfg.leadInSec) : undefined;
        if (lead) m.leadIn = [m.leadIn[0] + lead.cpu, m.leadIn[1] + lead.answered];
        const { r, cpu, answered, busy } = await measured(t, load.durationSec);
        m.cpu += cpu;
        m.samples = m.samples.concat(r.samples);
        const { samples: _s, latency, ...rest } = r;
        m.rounds.push({
          ...rest,
          p50: latency.p50,
          p99: latency.p99,
          cpuPerRequestUs: perRequestUs(cpu, answered),
          leadInCpuPerRequestUs: lead ? perRequestUs(lead.cpu, lead.answered) : NaN,
          machineBusy: busy,
        });
      }
    }
  }
  await b.sim.setKnobs(framingKnobs(b, 'length'));
  for (const f of b.cfg.framings) {
    const agg = (raw[framingKey(key, f)] = {} as PerTarget);
    for (const t of targets) {
      const m = merged.get(`${f} ${t}`);
      agg[t] = !m
        ? (skips[t] ?? 'n/a')
        : {
            rps: median(m.rounds.map((r) => r.rps)),
            cpuPerRequestUs: (m.cpu / m.rounds.reduce((n, r) => n + r.ok + r.non2xx, 0)) * 1e6,
            leadInCpuPerRequestUs: m.leadIn[1] > 0 ? (m.leadIn[0] / m.leadIn[1]) * 1e6 : NaN,
            latency: summarize(m.samples),
            errors: m.rounds.reduce((n, r) => n + r.non2xx + r.errors, 0),
            rounds: m.rounds,
          };
    }
    b.rows.push(...rows(`${wl}, ${framingLabel(f)}`, agg));
  }
}

/** CPU of the hop per request (independent of how the two cores were shared, unlike throughput); the lead-in's too. */
const hopCpuMetric = (what: string, pick: (a: Aggregate) => number): Metric<Aggregate> =>
  [what, 'count', pick, true, true] satisfies Metric<Aggregate>;
const cpu = hopCpuMetric('hop CPU per request (µs)', (a) => a.cpuPerRequestUs);
const leadInCpu = hopCpuMetric('hop CPU per request in the lead-ins (µs)', (a) => a.leadInCpuPerRequestUs);
const errors: Metric<Aggregate> = ['errors', 'count', (a) => a.errors, false];
const p50: Metric<Aggregate> = ['latency p50', 'ms', (a) => a.latency.p50];
const p99: Metric<Aggregate> = ['latency p99', 'ms', (a) => a.latency.p99];

/** Throughput, latency, CPU (the lead-ins' row only in a run with lead-ins, BENCH_LEAD_IN_SEC > 0) and errors. */
function standardRows(b: Bench, wl: string, agg: PerTarget): Row[] {
  const lead = b.cfg.leadInSec > 0 ? [leadInCpu] : [];
  return rowsOf(wl, agg, [['throughput', 'req/s', (a) => a.rps], p50, p99, cpu, ...lead, errors]);
}

/** Cells of X minus direct: what a hop adds to the same request. */
function addedRow(wl: string, metric: string, agg: PerTarget, get: (s: Summary) => number): Row {
  const direct = agg.direct;
  const cells = cellsOf(agg, (a) => (typeof direct === 'string' ? NaN : get(a.latency) - get(direct.latency)));
  return row(wl, metric, 'ms', { ...cells, direct: 0 });
}

export async function runRequestWorkloads(b: Bench, runA = true, runC = true): Promise<void> {
  const { cfg } = b;
  await b.sim.setKnobs(baseKnobs());
  if (runA) {
    // (a) unpaced: each concurrency level, as fast as the slowest process allows.
    const spec = (t: Target) => nativeSpec(b, t, false);
    const skips = await skipsOf(b, 'a', spec('proxy'), false);
    const rawA: Record<string, unknown> = {};
    for (const c of cfg.concurrency) {
      const load = { connections: c, durationSec: cfg.durationSec };
      await interleavedLoad(b, spec, load, skips, [`(a) c=${c}`, `c${c}`, `(a) non-stream, ${c} conc.`], rawA);
    }
    // (a) paced, clients spread and in lock step: docs/benchmarks.md "Reading the figures" says why both.
    await b.sim.setKnobs({ ...baseKnobs(), latencyMs: cfg.upstreamLatencyMs });
    const [n, up] = [cfg.latencyConcurrency, `upstream +${cfg.upstreamLatencyMs} ms`];
    const pacedRows = (wl: string, agg: PerTarget) => [
      ...rowsOf(wl, agg, [p50, p99]),
      addedRow(wl, 'added p50 vs direct', agg, (s) => s.p50),
      addedRow(wl, 'added p99 vs direct', agg, (s) => s.p99),
      ...rowsOf(wl, agg, [cpu, errors]),
    ];
    for (const [key, label, staggerMs, rounds] of [
      ['paced', `(a) ${n} conc. spread, ${up}`, cfg.upstreamLatencyMs, cfg.latencyRounds],
      ['pacedBurst', `(a) ${n} conc. in lock step, ${up}`, undefined, cfg.rounds],
    ] as const) {
      const load = { connections: n, durationSec: cfg.durationSec, staggerMs, rounds };
      await interleavedLoad(b, spec, load, skips, [`(a) ${key}`, key, label], rawA, pacedRows);
    }
    b.raw.a = rawA;
  }
  if (!runC) return;
  // (c) compat translation, not streaming. Direct and nginx serve the native equivalent (the simulator has no
  // compatible-format route): the ratio is the cost of the hop plus the translation. The proxy asks the provider
  // for a stream here (docs/direct-mode.md), so the framing changes only the other columns' answers.
  await b.sim.setKnobs(baseKnobs());
  const spec = (t: Target) => (t === 'proxy' ? compatSpec(b, false) : nativeSpec(b, t, false));
  const load = { connections: cfg.latencyConcurrency, durationSec: cfg.durationSec };
  const skips = await skipsOf(b, 'c', spec('proxy'), false);
  const wl = `(c) compat non-stream, ${cfg.latencyConcurrency} conc.`;
  await interleavedLoad(b, spec, load, skips, ['(c) compat non-stream', 'cNonStream', wl], b.raw);
}

type Soak = Record<'answered' | 'errors' | 'rps' | 'ok' | 'rssStart' | 'rssHalf' | 'rssEnd', number> & {
  statusCodes: Array<Record<string, number>>;
  base: string;
};

/** (f) The soak, on a fresh proxy, read in two halves (docs/benchmarks.md "Reading the figures"). */
export async function runSoak(b: Bench): Promise<void> {
  const { cfg } = b;
  const both = cfg.framings.length === 2;
  // Both framings in one soak, answer by answer, so a leak on either body path shows.
  await b.sim.setKnobs({
    ...baseKnobs(),
    jsonChunks: both ? 'alternate' : framingKnobs(b, cfg.framings[0]).jsonChunks,
  });
  await b.restartProxy();
  const skips = await skipsOf(b, 'f', nativeSpec(b, 'proxy', false), false);
  if (!cfg.soakAllTargets)
    for (const t of targets) if (t !== 'proxy') skips[t] ??= 'not run (BENCH_SOAK_ALL_TARGETS=0)';
  const res = { ...skips } as Record<Target, Soak | string>;
  for (const t of targets.filter((x) => !skips[x])) {
    const load = (amount: number) => runLoad(nativeSpec(b, t, false), { connections: cfg.soakConcurrency, amount });
    b.log(`(f) soak: ${t}, warm-up ${cfg.soakWarmup} requests`);
    await load(cfg.soakWarmup);
    const rssStart = hopRss(b, t);
    b.log(`(f) soak: ${t}, ${cfg.soakRequests} requests`);
    const r1 = await load(Math.floor(cfg.soakRequests / 2));
    const rssHalf = hopRss(b, t);
    const r2 = await load(cfg.soakRequests - Math.floor(cfg.soakRequests / 2));
    res[t] = {
      answered: r1.ok + r1.non2xx + r2.ok + r2.non2xx,
      errors: r1.non2xx + r1.errors + r2.non2xx + r2.errors,
      rps: (r1.ok + r2.ok) / (r1.seconds + r2.seconds),
      ok: r1.ok + r2.ok,
      statusCodes: [r1.statusCodes, r2.statusCodes],
      ...{ rssStart, rssHalf, rssEnd: hopRss(b, t), base: nativeSpec(b, t, false).base },
    };
  }
  b.raw.f = Object.fromEntries(targets.filter((t) => typeof res[t] !== 'string').map((t) => [t, res[t]]));
  const framed = both ? 'answers alternately with a length and chunked' : framingLabel(cfg.framings[0]);
  const wl = `(f) soak, ${cfg.soakRequests.toLocaleString('en-US')} req, ${cfg.soakConcurrency} conc., ${framed}`;
  const growth = (from: number, to: number) => ((to - from) / from) * 100;
  b.rows.push(
    ...rowsOf(wl, res, [
      ['requests answered', 'count', (s) => s.answered, false],
      ['errors', 'count', (s) => s.errors, false],
      ['throughput', 'req/s', (s) => s.rps],
      ['RSS after warm-up', 'MB', (s) => s.rssStart / 2 ** 20, false, true],
      ['RSS at half', 'MB', (s) => s.rssHalf / 2 ** 20, false, true],
      ['RSS at end', 'MB', (s) => s.rssEnd / 2 ** 20, false, true],
      ['RSS growth, whole soak', '%', (s) => growth(s.rssStart, s.rssEnd), false, true],
      ['RSS growth, second half', '%', (s) => growth(s.rssHalf, s.rssEnd), false, true],
    ]),
  );
}
