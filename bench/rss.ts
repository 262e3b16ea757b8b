// Memory of a process as Linux reports it in /proc/<pid>/status: VmRSS (resident now) and VmHWM (the resident
// high-water mark). Writing 5 to /proc/<pid>/clear_refs resets the high-water mark, so a peak can be attributed
// to one workload. Values in bytes; undefined where /proc is missing (not Linux).

import { readFileSync, writeFileSync } from 'node:fs';

export interface Rss {
  rss: number;
  hwm: number;
}

export function readRss(pid: number): Rss | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    return m ? Number(m[1]) * 1024 : 0;
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM') };
}

/** Resets VmHWM to the current RSS; false when the kernel refuses. */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** Direct children of pid (nginx's workers under its master). */
export function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Resident memory of a process and its direct children together (nginx master + workers). */
export function treeRss(pid: number): number {
  return [pid, ...childPids(pid)].reduce((sum, p) => sum + (readRss(p)?.rss ?? 0), 0);
}

/** Samples fn every intervalMs until stopped; returns the largest value seen. */
export function sampleMax(fn: () => number, intervalMs: number): { stop(): number } {
  let max = fn();
  const timer = setInterval(() => {
    max = Math.max(max, fn());
  }, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      max = Math.max(max, fn());
      return max;
    },
  };
}
