// The quota windows' table (docs/usage.md "Quota windows"): the latest value of each window, kept across restarts.
// The ledger holds them in memory and writes each change; an older observation never overwrites a newer one.

import type { SQLInputValue } from 'node:sqlite';
import type { Db } from './open-db.js';
import type { QuotaSource, QuotaWindow } from './types.js';

/** A window's key in the ledger's memory: one latest value per source and window name. */
export const quotaKey = (w: Pick<QuotaWindow, 'source' | 'window'>) => `${w.source}\u0000${w.window}`;

export const quotaUpsertSql = `INSERT INTO quota_windows (source, window, utilization, resets_at, status, observed_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (source, window) DO UPDATE SET utilization = excluded.utilization, resets_at = excluded.resets_at,
             status = excluded.status, observed_at = excluded.observed_at WHERE excluded.observed_at >= quota_windows.observed_at`;

export function quotaUpsertParams(w: QuotaWindow): SQLInputValue[] {
  return [w.source, w.window, w.utilization, w.resetsAt, w.status, w.observedAt];
}

/** Every window the file holds, as the ledger keeps them in memory. */
export function readQuotaWindows(db: Db): QuotaWindow[] {
  const rows = db
    .prepare('SELECT source, window, utilization, resets_at, status, observed_at FROM quota_windows')
    .all() as Array<{
    source: QuotaSource;
    window: string;
    utilization: number | null;
    resets_at: number | null;
    status: string | null;
    observed_at: number;
  }>;
  return rows.map((r) => ({
    source: r.source,
    window: r.window,
    utilization: r.utilization,
    resetsAt: r.resets_at,
    status: r.status,
    observedAt: r.observed_at,
  }));
}
