// The goals of issue 7, checked against this run's figures. They are reported, never asserted: a benchmark on a
// shared two-core machine informs, it does not pass or fail a build.

import type { BenchConfig } from './config.js';
import type { Goal } from './report.js';
import type { StreamRunResult } from './stream-probe.js';
import type { Aggregate } from './workload-requests.js';

type PerTarget<T> = Record<'proxy' | 'direct' | 'nginx', T | string>;

const ms = (v: number): string => `${v.toFixed(2)} ms`;
const isNum = <T>(v: T | string | undefined): v is T => v !== undefined && typeof v !== 'string';

export function evaluateGoals(raw: Record<string, unknown>, cfg: BenchConfig): Goal[] {
  const goals: Goal[] = [];
  const a = raw.a as Record<string, PerTarget<Aggregate>> | undefined;

  const paced = a?.paced;
  if (paced && isNum(paced.proxy) && isNum(paced.direct)) {
    const p50 = paced.proxy.latency.p50 - paced.direct.latency.p50;
    const p99 = paced.proxy.latency.p99 - paced.direct.latency.p99;
    goals.push({ goal: `added latency p50 ≤ 1 ms at ${cfg.latencyConcurrency} concurrent`, measured: `${ms(p50)} (upstream +${cfg.upstreamLatencyMs} ms)`, met: p50 <= 1 });
    goals.push({ goal: `added latency p99 ≤ 5 ms at ${cfg.latencyConcurrency} concurrent`, measured: ms(p99), met: p99 <= 5 });
  } else {
    goals.push({ goal: 'added latency p50 ≤ 1 ms / p99 ≤ 5 ms at 32 concurrent', measured: String(paced?.proxy ?? 'not run'), met: undefined });
  }

  const ratios: string[] = [];
  let allMet: boolean | undefined = true;
  for (const c of cfg.concurrency) {
    const agg = a?.[`c${c}`];
    if (!agg || !isNum(agg.proxy) || !isNum(agg.nginx)) {
      allMet = undefined;
      ratios.push(`c=${c}: ${agg ? String(agg.proxy) : 'not run'}`);
      continue;
    }
    const r = agg.proxy.rps / agg.nginx.rps;
    ratios.push(`c=${c}: ${r.toFixed(2)}×`);
    if (allMet !== undefined && r < 0.8) allMet = false;
  }
  goals.push({ goal: 'throughput ≥ 0.8× nginx on (a)', measured: ratios.join(', '), met: allMet });

  for (const [key, label] of [['b', '(b) native'], ['cStream', '(c) compat']] as const) {
    const s = raw[key] as PerTarget<StreamRunResult> | undefined;
    if (s && isNum(s.proxy)) {
      const own = isNum(s.direct) ? `; simulator's own, read directly: ${ms(s.direct.deviation.p99)}` : '';
      goals.push({
        goal: `${label} stream: inter-chunk gaps within 2 ms of the ${cfg.streamIntervalMs} ms pacing (p99 of |gap − pacing|)`,
        measured: `${ms(s.proxy.deviation.p99)}${own}`,
        met: s.proxy.deviation.p99 <= 2,
      });
    } else goals.push({ goal: `${label} stream: inter-chunk gaps within 2 ms of pacing`, measured: String(s?.proxy ?? 'not run'), met: undefined });
  }

  const e = raw.e as { peakRssMB?: PerTarget<number> } | undefined;
  const peak = e?.peakRssMB?.proxy;
  goals.push({
    goal: `RSS ≤ 150 MB with ${cfg.openStreams} open streams${cfg.openStreams < 500 ? ' (goal is stated for 500)' : ''}`,
    measured: typeof peak === 'number' ? `${peak.toFixed(1)} MB peak` : String(peak ?? 'not run'),
    met: typeof peak === 'number' ? peak <= 150 : undefined,
  });

  const f = raw.f as Record<string, { rssStart: number; rssEnd: number; ok: number }> | undefined;
  const soak = f?.proxy;
  if (soak && Number.isFinite(soak.rssStart) && Number.isFinite(soak.rssEnd)) {
    const growth = ((soak.rssEnd - soak.rssStart) / soak.rssStart) * 100;
    goals.push({
      goal: `RSS growth < 10 % over the soak (${cfg.soakRequests.toLocaleString('en-US')} requests${cfg.soakRequests < 100_000 ? '; goal is stated for ≥ 100,000' : ''})`,
      measured: `${(soak.rssStart / 2 ** 20).toFixed(1)} → ${(soak.rssEnd / 2 ** 20).toFixed(1)} MB (${growth >= 0 ? '+' : ''}${growth.toFixed(1)} %)`,
      met: growth < 10,
    });
  } else goals.push({ goal: 'RSS growth < 10 % over the soak', measured: 'not measured', met: undefined });
  return goals;
}
