// Streaming workloads read with stream-probe.ts (docs/benchmarks.md "What is measured"): (b) paced streams, (c) the
// same through the compat translation route, (e) hundreds of slow streams open at once on a fresh proxy.

import { baseKnobs, compatSpec, hopCpu, hopRss, nativeSpec, skipsOf, type Bench, type Skips } from './context.js';
import type { RequestSpec } from './load.js';
import { perRequestUs, readRss, resetPeakRss, sampleMax } from './procfs.js';
import { cellsOf, rowsOf, targets, type Target } from './report.js';
import { runStreams, summarizeStreams } from './stream-probe.js';
import type { StreamKind, StreamRecord, StreamRunResult } from './stream-probe.js';

type WithHop = StreamRunResult & { cpuPerStreamUs?: number; rssBefore?: number; peakRss?: number };

const withoutRecords = (res: Record<Target, WithHop | string>) => cellsOf(res, (r) => ({ ...r, records: undefined }));
/** Figures of a hop, per target, as the raw figures have always had them: a number, or why there is none. */
const perTarget = (res: Record<Target, WithHop | string>, get: (r: WithHop) => number | undefined) =>
  cellsOf(res, (r, t) => (t === 'direct' ? 'n/a (no hop)' : get(r)));

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
        intervalMs: cfg.streamIntervalMs,
        timeoutMs: cfg.streamChunks * cfg.streamIntervalMs * 5 + 30_000,
      });
      cpu.set(t, (cpu.get(t) ?? 0) + hopCpu(b, t) - cpu0);
      records.set(t, [...(records.get(t) ?? []), ...r.records]);
    }
  }
  const res = {} as Record<Target, WithHop | string>;
  for (const t of targets) {
    const recs = records.get(t);
    const cpuPerStreamUs = perRequestUs(cpu.get(t) ?? NaN, recs?.length ?? 0);
    res[t] = recs ? { ...summarizeStreams(recs, cfg.streamIntervalMs), cpuPerStreamUs } : (skips[t] ?? 'n/a');
  }
  b.raw[key] = { ...withoutRecords(res), cpuPerStreamUs: perTarget(res, (r) => r.cpuPerStreamUs) };
  b.rows.push(
    ...rowsOf(wl, res, [
      ['TTFB p50', 'ms', (s) => s.ttfb.p50],
      ['TTFB p99', 'ms', (s) => s.ttfb.p99],
      ['inter-chunk gap p50', 'ms', (s) => s.gap.p50],
      ['inter-chunk gap p99', 'ms', (s) => s.gap.p99],
      ['|gap − pacing| p99', 'ms', (s) => s.deviation.p99],
      ['deltas glued to previous read', '%', (s) => s.coalescedShare * 100, false],
      ['hop CPU per stream (µs)', 'count', (s) => s.cpuPerStreamUs!, true, true],
      ['errors', 'count', (s) => s.errors, false],
    ]),
  );
}

/** The simulator paces n deltas `intervalMs` apart: n pieces of exactly 5 characters, one delta per piece. */
const pacing = (n: number, intervalMs: number) => ({
  ...baseKnobs(),
  replyText: 'word '.repeat(n),
  chunkCount: n,
  chunkIntervalMs: intervalMs,
});

export async function runPacedStreams(b: Bench, runB = true, runC = true): Promise<void> {
  const { cfg } = b;
  await b.sim.setKnobs(pacing(cfg.streamChunks, cfg.streamIntervalMs));
  const label = `${cfg.streamChunks} chunks @ ${cfg.streamIntervalMs} ms, ${cfg.streamConcurrency} conc.`;
  if (runB) {
    const spec = (t: Target) => nativeSpec(b, t, true);
    const skips = await skipsOf(b, 'b', spec('proxy'), true);
    await pacedStreams(b, 'b', `(b) stream, ${label}`, spec, () => 'native', skips);
  }
  if (!runC) return;
  const spec = (t: Target) => (t === 'proxy' ? compatSpec(b, true) : nativeSpec(b, t, true));
  const kind = (t: Target) => (t === 'proxy' ? 'compat' : 'native');
  const skips = await skipsOf(b, 'c', spec('proxy'), true);
  await pacedStreams(b, 'cStream', `(c) compat stream, ${label}`, spec, kind, skips);
}

export async function runOpenStreams(b: Bench): Promise<void> {
  const { cfg } = b;
  await b.sim.setKnobs(pacing(cfg.openStreamChunks, cfg.openStreamIntervalMs));
  // Both hops start fresh, so each adds its young generation's growth from the same state (docs/performance.md
  // "Memory": V8 grows it by what survives, and a warm process may have grown or shrunk it already).
  await b.restartProxy();
  await b.restartNodeHop();
  // The route check need not stream: with this pacing one stream takes seconds.
  const skips = await skipsOf(b, 'e', nativeSpec(b, 'proxy', false), false);
  const res = { ...skips } as Record<Target, WithHop | string>;
  const MB = 2 ** 20;
  for (const t of targets.filter((x) => !skips[x])) {
    if (t === 'proxy') resetPeakRss(b.proxy.pid);
    const rssBefore = hopRss(b, t) / MB;
    const sampler = sampleMax(() => hopRss(b, t), 100);
    b.log(`(e) ${cfg.openStreams} open streams: ${t}`);
    const r = await runStreams(nativeSpec(b, t, true), {
      kind: 'native',
      concurrency: cfg.openStreams,
      intervalMs: cfg.openStreamIntervalMs,
      timeoutMs: cfg.openStreamChunks * cfg.openStreamIntervalMs * 4 + 60_000,
    });
    // VmHWM also sees the proxy's peaks between samples.
    const max = Math.max(sampler.stop(), t === 'proxy' ? (readRss(b.proxy.pid)?.hwm ?? NaN) : -Infinity);
    res[t] = { ...r, rssBefore, peakRss: max / MB };
  }
  const [peakRssMB, rssBeforeMB] = [perTarget(res, (r) => r.peakRss), perTarget(res, (r) => r.rssBefore)];
  b.raw.e = { ...withoutRecords(res), peakRssMB, rssBeforeMB };
  b.rows.push(
    ...rowsOf(`(e) ${cfg.openStreams} open streams`, res, [
      ['RSS before', 'MB', (r) => r.rssBefore!, false, true],
      ['peak RSS', 'MB', (r) => r.peakRss!, true, true],
      ['streams open at once', 'count', (r) => r.maxOpen, false],
      ['TTFB p99', 'ms', (r) => r.ttfb.p99],
      ['errors', 'count', (r) => r.errors, false],
    ]),
  );
}
