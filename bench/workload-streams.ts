// Streaming workloads read with stream-probe.ts:
//   (b) direct mode streaming, N chunks per response at a fixed pacing: time to first byte, inter-chunk gaps
//       against the simulator's own pacing, and deltas that arrived glued to the one before (buffering);
//   (c) the same through the compat translation route (direct and nginx serve the native equivalent);
//   (e) hundreds of streams open at once on a fresh proxy, paced slowly so they stay open: peak RSS and errors.

import {
  baseKnobs,
  ccrProblem,
  compatSpec,
  hopCpu,
  nativeSpec,
  proxyRouteProblem,
  targets,
  type Bench,
  type Skips,
} from './context.js';
import type { RequestSpec } from './load.js';
import type { Cell, Row, Target } from './report.js';
import { readRss, resetPeakRss, sampleMax, treeRss } from './rss.js';
import {
  runStreams,
  summarizeStreams,
  type StreamKind,
  type StreamRecord,
  type StreamRunResult,
} from './stream-probe.js';

const MB = 1024 * 1024;

function cellsOf(
  res: Record<Target, StreamRunResult | string>,
  pick: (r: StreamRunResult) => number,
): Record<Target, Cell> {
  const out = {} as Record<Target, Cell>;
  for (const t of targets) {
    const r = res[t];
    out[t] = typeof r === 'string' ? r : pick(r);
  }
  return out;
}

function withoutRecords(res: Record<Target, StreamRunResult | string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const t of targets) {
    const r = res[t];
    out[t] = typeof r === 'string' ? r : { ...r, records: undefined };
  }
  return out;
}

interface PacedResult {
  res: Record<Target, StreamRunResult | string>;
  /** CPU time of the hop (from /proc) per stream, µs, over all rounds; n/a for direct. */
  cpuPerStreamUs: Record<Target, Cell>;
}

/** Paced streams, interleaved A B A B, records merged over the rounds. */
async function interleavedStreams(
  b: Bench,
  specOf: (t: Target) => RequestSpec,
  kindOf: (t: Target) => StreamKind,
  skips: Skips,
  label: string,
): Promise<PacedResult> {
  const { cfg } = b;
  const records = new Map<Target, StreamRecord[]>();
  const cpu = new Map<Target, number>();
  const streamMs = cfg.streamChunks * cfg.streamIntervalMs;
  for (let round = 0; round < cfg.rounds; round++) {
    for (const t of targets) {
      if (skips[t]) continue;
      b.log(`${label}: ${t}, round ${round + 1}/${cfg.rounds}`);
      const cpu0 = hopCpu(b, t);
      const r = await runStreams(specOf(t), {
        kind: kindOf(t),
        concurrency: cfg.streamConcurrency,
        count: cfg.streamConcurrency,
        intervalMs: cfg.streamIntervalMs,
        timeoutMs: streamMs * 5 + 30_000,
      });
      cpu.set(t, (cpu.get(t) ?? 0) + hopCpu(b, t) - cpu0);
      records.set(t, [...(records.get(t) ?? []), ...r.records]);
    }
  }
  const res = {} as Record<Target, StreamRunResult | string>;
  const cpuPerStreamUs = {} as Record<Target, Cell>;
  for (const t of targets) {
    const recs = records.get(t);
    res[t] = recs ? summarizeStreams(recs, cfg.streamIntervalMs) : (skips[t] ?? 'n/a');
    cpuPerStreamUs[t] =
      t === 'direct'
        ? 'n/a (no hop)'
        : recs
          ? ((cpu.get(t) ?? NaN) / Math.max(1, recs.length)) * 1e6
          : (skips[t] ?? 'n/a');
  }
  return { res, cpuPerStreamUs };
}

function pacedRows(workload: string, { res, cpuPerStreamUs }: PacedResult): Row[] {
  const row = (metric: string, unit: Row['unit'], pick: (r: StreamRunResult) => number, ratios = true): Row => ({
    workload,
    metric,
    unit,
    cells: cellsOf(res, pick),
    ratios,
  });
  return [
    row('TTFB p50', 'ms', (r) => r.ttfb.p50),
    row('TTFB p99', 'ms', (r) => r.ttfb.p99),
    row('inter-chunk gap p50', 'ms', (r) => r.gap.p50),
    row('inter-chunk gap p99', 'ms', (r) => r.gap.p99),
    row('|gap − pacing| p99', 'ms', (r) => r.deviation.p99),
    row('deltas glued to previous read', '%', (r) => r.coalescedShare * 100, false),
    { workload, metric: 'hop CPU per stream (µs)', unit: 'count', cells: cpuPerStreamUs, ratios: true },
    row('errors', 'count', (r) => r.errors, false),
  ];
}

export async function runPacedStreams(b: Bench, runB = true, runC = true): Promise<void> {
  const { cfg } = b;
  // N pieces of exactly 5 characters: splitText gives one delta per piece.
  await b.sim.setKnobs({
    ...baseKnobs(),
    replyText: 'word '.repeat(cfg.streamChunks),
    chunkCount: cfg.streamChunks,
    chunkIntervalMs: cfg.streamIntervalMs,
  });
  const pacing = `${cfg.streamChunks} chunks @ ${cfg.streamIntervalMs} ms, ${cfg.streamConcurrency} conc.`;

  if (runB) {
    const skipsB: Skips = {
      proxy: await proxyRouteProblem(nativeSpec(b, 'proxy', true)),
      ccr: await ccrProblem(b, 'b', true),
    };
    const resB = await interleavedStreams(
      b,
      (t) => nativeSpec(b, t, true),
      () => 'native',
      skipsB,
      '(b) stream',
    );
    b.raw.b = { ...withoutRecords(resB.res), cpuPerStreamUs: resB.cpuPerStreamUs };
    b.rows.push(...pacedRows(`(b) stream, ${pacing}`, resB));
  }
  if (!runC) return;

  const skipsC: Skips = { proxy: await proxyRouteProblem(compatSpec(b, true)), ccr: await ccrProblem(b, 'c', true) };
  const resC = await interleavedStreams(
    b,
    (t) => (t === 'proxy' ? compatSpec(b, true) : nativeSpec(b, t, true)),
    (t) => (t === 'proxy' ? 'compat' : 'native'),
    skipsC,
    '(c) compat stream',
  );
  b.raw.cStream = { ...withoutRecords(resC.res), cpuPerStreamUs: resC.cpuPerStreamUs };
  b.rows.push(...pacedRows(`(c) compat stream, ${pacing}`, resC));
}

export async function runOpenStreams(b: Bench): Promise<void> {
  const { cfg } = b;
  await b.sim.setKnobs({
    ...baseKnobs(),
    replyText: 'word '.repeat(cfg.openStreamChunks),
    chunkCount: cfg.openStreamChunks,
    chunkIntervalMs: cfg.openStreamIntervalMs,
  });
  await b.restartProxy();
  // The route check need not stream: with this pacing one stream takes seconds.
  const skips: Skips = {
    proxy: await proxyRouteProblem(nativeSpec(b, 'proxy', false)),
    ccr: await ccrProblem(b, 'e', false),
  };
  const res = {} as Record<Target, StreamRunResult | string>;
  const peak = {} as Record<Target, Cell>;
  const before = {} as Record<Target, Cell>;
  for (const t of targets) {
    const why = skips[t];
    if (why) {
      res[t] = peak[t] = before[t] = why;
      continue;
    }
    let rssNow: () => number;
    if (t === 'proxy') {
      const pid = b.proxy.pid;
      resetPeakRss(pid);
      rssNow = () => readRss(pid)?.rss ?? NaN;
    } else if (t === 'nginx') rssNow = () => treeRss(b.nginx.pid);
    else if (t === 'node') rssNow = () => readRss(b.nodeHop.pid)?.rss ?? NaN;
    else if (t === 'ccr' && typeof b.ccr !== 'string') {
      const pid = b.ccr.pid;
      rssNow = () => treeRss(pid);
    } else rssNow = () => NaN;
    before[t] = t === 'direct' ? 'n/a (no hop)' : rssNow() / MB;
    const sampler = sampleMax(rssNow, 100);
    b.log(`(e) ${cfg.openStreams} open streams: ${t}`);
    const r = await runStreams(nativeSpec(b, t, true), {
      kind: 'native',
      concurrency: cfg.openStreams,
      count: cfg.openStreams,
      intervalMs: cfg.openStreamIntervalMs,
      timeoutMs: cfg.openStreamChunks * cfg.openStreamIntervalMs * 4 + 60_000,
    });
    let max = sampler.stop();
    if (t === 'proxy') max = Math.max(max, readRss(b.proxy.pid)?.hwm ?? NaN); // VmHWM also sees peaks between samples
    res[t] = r;
    peak[t] = t === 'direct' ? 'n/a (no hop)' : max / MB;
  }
  b.raw.e = { ...withoutRecords(res), peakRssMB: peak, rssBeforeMB: before };
  const wl = `(e) ${cfg.openStreams} open streams`;
  b.rows.push(
    { workload: wl, metric: 'RSS before', unit: 'MB', cells: before, ratios: false },
    { workload: wl, metric: 'peak RSS', unit: 'MB', cells: peak, ratios: true },
    {
      workload: wl,
      metric: 'streams open at once',
      unit: 'count',
      cells: cellsOf(res, (r) => r.maxOpen),
      ratios: false,
    },
    { workload: wl, metric: 'TTFB p99', unit: 'ms', cells: cellsOf(res, (r) => r.ttfb.p99), ratios: true },
    { workload: wl, metric: 'errors', unit: 'count', cells: cellsOf(res, (r) => r.errors), ratios: false },
  );
}
