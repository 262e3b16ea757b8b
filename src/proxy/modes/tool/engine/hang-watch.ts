// Noticing a CLI that stopped making progress (docs/tool-mode.md "Process hygiene"): while a request reads a turn, the
// process is looked at twice a second; one the OS reports stopped (state T or t in /proc/<pid>/stat: a SIGSTOP, a
// debugger, a terminal job control stop) for `stoppedMs` prints nothing and makes no provider call, so it is ended
// within seconds instead of at the first-event deadline a minute later. A process that is only waiting (for the
// provider, for a tool result) is sleeping, not stopped, and is left alone. Linux only: elsewhere the state cannot be
// read and the deadlines apply.

import { readFileSync } from 'node:fs';

/** The one-letter state of a process from /proc (Linux), or undefined. */
export function procStateOf(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces and parentheses: the state follows the last ')'.
    const end = stat.lastIndexOf(')');
    return end < 0 ? undefined : stat.charAt(end + 2) || undefined;
  } catch {
    return undefined;
  }
}

interface HangWatchOptions {
  everyMs?: number;
  /** Stopped this long: hung. */
  stoppedMs?: number;
  stateOf?: (pid: number) => string | undefined;
  now?: () => number;
}

/** Calls `onHang` once when `pid` stays stopped for `stoppedMs`; returns the watch's end. */
export function watchHang(pid: number, onHang: (why: string) => void, opts: HangWatchOptions = {}): () => void {
  const { everyMs = 500, stoppedMs = 2000, stateOf = procStateOf, now = Date.now } = opts;
  let since: number | undefined;
  const timer = setInterval(() => {
    const state = stateOf(pid);
    if (state !== 'T' && state !== 't') {
      since = undefined;
      return;
    }
    since ??= now();
    if (now() - since < stoppedMs) return;
    clearInterval(timer);
    onHang(`its process was stopped for ${Math.round(stoppedMs / 1000)} s with no output`);
  }, everyMs);
  timer.unref?.();
  return () => clearInterval(timer);
}
