// Percentiles of raw samples (autocannon's own histogram rounds latency to whole milliseconds, too coarse for a goal
// of "at most 1 ms added").

export interface Summary {
  count: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** Nearest-rank percentiles of the values (NaN for an empty set). */
export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const at = (p: number): number =>
    n === 0 ? NaN : sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))];
  let sum = 0;
  for (const v of sorted) sum += v;
  return { count: n, mean: n ? sum / n : NaN, p50: at(50), p90: at(90), p99: at(99), max: n ? sorted[n - 1] : NaN };
}

/** The median of the finite values, the mean of the middle two for an even count (throughput over rounds). */
export function median(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}
