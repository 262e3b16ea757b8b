// What Linux reports of a process in /proc: CPU time (user + system, 100 clock ticks a second), resident memory (VmRSS,
// and VmHWM, which writing 5 to clear_refs resets) and direct children. CPU time per request does not depend on how
// the shared cores were scheduled, unlike throughput (docs/benchmarks.md "Reading the figures").

import { readFileSync, writeFileSync } from 'node:fs';

const read = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** Seconds of CPU used so far by pid. */
export function cpuSeconds(pid: number): number {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return NaN;
  // Fields after the command name (which may hold spaces) start after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

export function readRss(pid: number): { rss: number; hwm: number } | undefined {
  const text = read(`/proc/${pid}/status`);
  if (!text) return undefined;
  const field = (name: string): number =>
    Number(new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** CPU seconds spent on `answered` requests, as µs per request. */
export const perRequestUs = (cpu: number, answered: number): number => (cpu / Math.max(1, answered)) * 1e6;

/** A process and its direct children (nginx master and workers) together. */
const tree = (pid: number, of: (p: number) => number): number =>
  (read(`/proc/${pid}/task/${pid}/children`) ?? '')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .reduce((sum, p) => sum + of(Number(p)), of(pid));
export const treeCpuSeconds = (pid: number): number => tree(pid, cpuSeconds);
export const treeRss = (pid: number): number => (readRss(pid) ? tree(pid, (p) => readRss(p)?.rss ?? 0) : NaN);

/** Busy and total jiffies of the whole machine (all cores), from the first line of /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  const v = (read('/proc/stat') ?? '').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return v.length ? { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total } : { busy: NaN, total: NaN };
}

/** Resets VmHWM to the current RSS, so a peak can be attributed to one workload. */
export function resetPeakRss(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not allowed here: the peak then includes what came before
  }
}

/** Samples fn every intervalMs until stopped; returns the largest value seen. */
export function sampleMax(fn: () => number, intervalMs: number): { stop(): number } {
  let max = fn();
  const timer = setInterval(() => (max = Math.max(max, fn())), intervalMs);
  return {
    stop() {
      clearInterval(timer);
      return (max = Math.max(max, fn()));
    },
  };
}

/**
 * µs of CPU per call of each way, read from its process: `rounds` rounds of `n` calls each, the order turning round
 * by round so that no way always runs first (warmer, or after another's GC).
 */
export async function cpuPerCall<K extends string>(
  ways: Record<K, { pid: number; once: () => Promise<unknown> }>,
  rounds: number,
  n: number,
): Promise<Record<K, number>> {
  const order = Object.keys(ways) as K[];
  const spent = new Map<K, number>();
  for (let r = 0; r < rounds; r++)
    for (const k of [...order.slice(r % order.length), ...order.slice(0, r % order.length)]) {
      const before = cpuSeconds(ways[k].pid);
      for (let i = 0; i < n; i++) await ways[k].once();
      spent.set(k, (spent.get(k) ?? 0) + cpuSeconds(ways[k].pid) - before);
    }
  return Object.fromEntries(order.map((k) => [k, perRequestUs(spent.get(k)!, rounds * n)])) as Record<K, number>;
}
