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
  hopRss,
  nativeSpec,
  proxyRouteProblem,
  type Bench,
  type Skips,
} from './context.js';
import type { RequestSpec } from './load.js';
import { readRss, resetPeakRss, sampleMax } from './procfs.js';
import { cellsOf, row, targets, type Cell, type Row, type Target } from './report.js';
import {
  runStreams,
  summarizeStreams,
  type StreamKind,
  type StreamRecord,
  type StreamRunResult,
} from './stream-probe.js';

type Results = Record<Target, StreamRunResult | string>;

const withoutRecords = (res: Results): Record<string, unknown> =>
  Object.fromEntries(targets.map((t) => [t, typeof res[t] === 'string' ? res[t] : { ...res[t], records: undefined }]));

/** Paced streams, interleaved A B A B, records merged over the rounds; then the rows and raw figures. */
async function pacedStreams(
  b: Bench,
  key: string,
  wl: string,
  specOf: (t: Target) => RequestSpec,
  kindOf: (t: Target) => StreamKind,
  skips: Skips,
) {
  const { cfg } = b;
  const records = new Map<Target, StreamRecord[]>();
  const cpu = new Map<Target, number>();
  for (let round = 0; round < cfg.rounds; round++) {
    for (const t of targets.filter((x) => !skips[x])) {
      b.log(`${key === 'b' ? '(b) stream' : '(c) compat stream'}: ${t}, round ${round + 1}/${cfg.rounds}`);
      const cpu0 = hopCpu(b, t);
      const r = await runStreams(specOf(t), {
        kind: kindOf(t),
        concurrency: cfg.streamConcurrency,
        count: cfg.streamConcurrency,
        intervalMs: cfg.streamIntervalMs,
        timeoutMs: cfg.streamChunks * cfg.streamIntervalMs * 5 + 30_000,
      });
      cpu.set(t, (cpu.get(t) ?? 0) + hopCpu(b, t) - cpu0);
      records.set(t, [...(records.get(t) ?? []), ...r.records]);
    }
  }
  const res = {} as Results;
  const cpuPerStreamUs = {} as Record<Target, Cell>;
  for (const t of targets) {
    const recs = records.get(t);
    res[t] = recs ? summarizeStreams(recs, cfg.streamIntervalMs) : (skips[t] ?? 'n/a');
    const perStream = recs ? ((cpu.get(t) ?? NaN) / Math.max(1, recs.length)) * 1e6 : (skips[t] ?? 'n/a');
    cpuPerStreamUs[t] = t === 'direct' ? 'n/a (no hop)' : perStream;
  }
  b.raw[key] = { ...withoutRecords(res), cpuPerStreamUs };
  const r = (metric: string, unit: Row['unit'], pick: (r: StreamRunResult) => number, ratios = true): Row =>
    row(wl, metric, unit, cellsOf(res, pick), ratios);
  b.rows.push(
    r('TTFB p50', 'ms', (s) => s.ttfb.p50),
    r('TTFB p99', 'ms', (s) => s.ttfb.p99),
    r('inter-chunk gap p50', 'ms', (s) => s.gap.p50),
    r('inter-chunk gap p99', 'ms', (s) => s.gap.p99),
    r('|gap − pacing| p99', 'ms', (s) => s.deviation.p99),
    r('deltas glued to previous read', '%', (s) => s.coalescedShare * 100, false),
    row(wl, 'hop CPU per stream (µs)', 'count', cpuPerStreamUs),
    r('errors', 'count', (s) => s.errors, false),
  );
}

export async function runPacedStreams(b: Bench, runB = true, runC = true): Promise<void> {
  const { cfg } = b;
  // N pieces of exactly 5 characters: splitText gives one delta per piece.
  const pacing = {
    replyText: 'word '.repeat(cfg.streamChunks),
    chunkCount: cfg.streamChunks,
    chunkIntervalMs: cfg.streamIntervalMs,
  };
  await b.sim.setKnobs({ ...baseKnobs(), ...pacing });
  const label = `${cfg.streamChunks} chunks @ ${cfg.streamIntervalMs} ms, ${cfg.streamConcurrency} conc.`;
  if (runB) {
    const skips = { proxy: await proxyRouteProblem(nativeSpec(b, 'proxy', true)), ccr: await ccrProblem(b, 'b', true) };
    await pacedStreams(
      b,
      'b',
      `(b) stream, ${label}`,
      (t) => nativeSpec(b, t, true),
      () => 'native',
      skips,
    );
  }
  if (!runC) return;
  const skips = { proxy: await proxyRouteProblem(compatSpec(b, true)), ccr: await ccrProblem(b, 'c', true) };
  const spec = (t: Target) => (t === 'proxy' ? compatSpec(b, true) : nativeSpec(b, t, true));
  await pacedStreams(
    b,
    'cStream',
    `(c) compat stream, ${label}`,
    spec,
    (t) => (t === 'proxy' ? 'compat' : 'native'),
    skips,
  );
}

export async function runOpenStreams(b: Bench): Promise<void> {
  const { cfg } = b;
  const pacing = {
    replyText: 'word '.repeat(cfg.openStreamChunks),
    chunkCount: cfg.openStreamChunks,
    chunkIntervalMs: cfg.openStreamIntervalMs,
  };
  await b.sim.setKnobs({ ...baseKnobs(), ...pacing });
  // Both hops start fresh, so each adds its young generation's growth from the same state (docs/performance.md
  // "Memory": V8 grows it by what survives, and a warm process may have grown or shrunk it already).
  await b.restartProxy();
  await b.restartNodeHop();
  // The route check need not stream: with this pacing one stream takes seconds.
  const skips: Skips = {
    proxy: await proxyRouteProblem(nativeSpec(b, 'proxy', false)),
    ccr: await ccrProblem(b, 'e', false),
  };
  const res = {} as Results;
  const peak = {} as Record<Target, Cell>;
  const before = {} as Record<Target, Cell>;
  const MB = 2 ** 20;
  for (const t of targets) {
    const why = skips[t];
    if (why) {
      res[t] = peak[t] = before[t] = why;
      continue;
    }
    if (t === 'proxy') resetPeakRss(b.proxy.pid);
    before[t] = t === 'direct' ? 'n/a (no hop)' : hopRss(b, t) / MB;
    const sampler = sampleMax(() => hopRss(b, t), 100);
    b.log(`(e) ${cfg.openStreams} open streams: ${t}`);
    res[t] = await runStreams(nativeSpec(b, t, true), {
      kind: 'native',
      concurrency: cfg.openStreams,
      count: cfg.openStreams,
      intervalMs: cfg.openStreamIntervalMs,
      timeoutMs: cfg.openStreamChunks * cfg.openStreamIntervalMs * 4 + 60_000,
    });
    // VmHWM also sees the proxy's peaks between samples.
    const max = Math.max(sampler.stop(), t === 'proxy' ? (readRss(b.proxy.pid)?.hwm ?? NaN) : -Infinity);
    peak[t] = t === 'direct' ? 'n/a (no hop)' : max / MB;
  }
  b.raw.e = { ...withoutRecords(res), peakRssMB: peak, rssBeforeMB: before };
  const wl = `(e) ${cfg.openStreams} open streams`;
  b.rows.push(
    row(wl, 'RSS before', 'MB', before, false),
    row(wl, 'peak RSS', 'MB', peak),
    row(
      wl,
      'streams open at once',
      'count',
      cellsOf(res, (r) => r.maxOpen),
      false,
    ),
    row(
      wl,
      'TTFB p99',
      'ms',
      cellsOf(res, (r) => r.ttfb.p99),
    ),
    row(
      wl,
      'errors',
      'count',
      cellsOf(res, (r) => r.errors),
      false,
    ),
  );
}
