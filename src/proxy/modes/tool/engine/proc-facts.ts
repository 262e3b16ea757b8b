// Facts about processes and files that decide whether a CLI process may still serve: the login and settings it was
// started under, and its resident memory.

import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';

/**
 * A fingerprint of files (modification time and size; "missing" when absent) and of settings: the CLI's credential
 * and settings files, and the proxy settings that reach the child. A process started under another one is replaced.
 */
export function filesFingerprint(paths: string[], settings: unknown = null): string {
  const parts = paths.map((p) => {
    try {
      const s = statSync(p);
      return `${s.mtimeMs}:${s.size}`;
    } catch {
      return 'missing';
    }
  });
  return createHash('sha256')
    .update(JSON.stringify([parts, settings]))
    .digest('hex');
}

/** Resident memory of a process from /proc (Linux), bytes; undefined elsewhere or when it is gone. */
export function procRss(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Resident memory of `list` together, bytes (0 when `rssOf` cannot tell); `each` gets every one measured. */
export function rssTogether<C extends { readonly pid?: number }>(
  list: C[],
  rssOf: ((pid: number) => number | undefined) | undefined,
  each?: Map<C, number>,
): number {
  let sum = 0;
  for (const c of list) {
    const rss = c.pid === undefined ? undefined : rssOf?.(c.pid);
    if (rss === undefined) continue;
    each?.set(c, rss);
    sum += rss;
  }
  return sum;
}
