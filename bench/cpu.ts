// CPU time a process has used (user + system), from /proc/<pid>/stat. On a two-core machine shared by the load
// generator, the simulator and the hop under test, wall-clock throughput depends on scheduling; CPU time per
// request does not, so it is reported beside it. Clock ticks are 100 per second on Linux (USER_HZ).

import { readFileSync } from 'node:fs';
import { childPids } from './rss.js';

const USER_HZ = 100;

/** Seconds of CPU used so far by pid, NaN when /proc cannot tell. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / USER_HZ;
  } catch {
    return NaN;
  }
}

/** A process and its direct children (nginx master and workers). */
export function treeCpuSeconds(pid: number): number {
  return [pid, ...childPids(pid)].reduce((sum, p) => sum + cpuSeconds(p), 0);
}

/** Busy and total jiffies of the whole machine (all cores), from the first line of /proc/stat. */
export function machineTicks(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const v = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (v[3] ?? 0) + (v[4] ?? 0); // idle + iowait
    const total = v.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return { busy: NaN, total: NaN };
  }
}

/**
 * The main thread's own scheduler account (Linux, /proc/<pid>/task/<pid>/schedstat, nanoseconds): time on a core,
 * time runnable but waiting for one, and how many times it was put on one. The main thread is where a Node hop's
 * requests are handled, so its time is what a request waits behind; the process's whole CPU (cpuSeconds) also
 * counts V8's helper threads. Nanoseconds, not clock ticks: a few seconds of light load resolve to the microsecond.
 * NaNs when /proc cannot tell.
 */
export function mainThreadSched(pid: number): { runNs: number; waitNs: number; slices: number } {
  try {
    const [run, wait, slices] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8')
      .trim()
      .split(' ')
      .map(Number);
    return { runNs: run, waitNs: wait, slices };
  } catch {
    return { runNs: NaN, waitNs: NaN, slices: NaN };
  }
}
