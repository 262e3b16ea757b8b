// Ending a CLI child for good (docs/principles.md "Child processes"): SIGTERM to its whole process group, so that tools
// it started end too, then SIGKILL to whatever is left after a grace period. On Windows there are no process groups;
// the child itself is ended.

import type { ResultPromise } from 'execa';

/** SIGTERM first; SIGKILL when the child is still there this much later. */
export const killGraceMs = 2000;

/** Children are started as process-group leaders (execa `detached`) where groups exist. */
export const processGroups = process.platform !== 'win32';

function signalChild(child: ResultPromise, signal: NodeJS.Signals): void {
  if (processGroups && child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
      return;
    } catch {
      // the group is gone already; fall through to the process itself
    }
  }
  if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}

/** SIGTERM to the child's process group, SIGKILL to what is left after the grace period. */
export function terminate(child: ResultPromise): void {
  if (child.pid === undefined) return;
  signalChild(child, 'SIGTERM');
  setTimeout(() => signalChild(child, 'SIGKILL'), killGraceMs).unref();
}

/** SIGKILL to the child's process group at once: for a process that cannot act on SIGTERM (a stopped one). */
export function killNow(child: ResultPromise): void {
  if (child.pid === undefined) return;
  signalChild(child, 'SIGKILL');
}

/** Resolves when the process has exited, even when a grandchild still holds its stdout open. */
export function exitOf(child: ResultPromise): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    // A spawn failure emits `error` and no `exit`.
    child.once('error', () => resolve());
    child.catch(() => undefined).finally(() => resolve());
  });
}
