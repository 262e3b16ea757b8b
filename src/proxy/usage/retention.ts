// The usage ledger's bounds (docs/usage.md "Retention and size cap"): rows past USAGE_RETENTION_DAYS go first, then the oldest
// while the data is over USAGE_MAX_MB, each in chunks so that no single statement holds the event loop long.

import { pragmaValue, type Db } from './open-db.js';

const DELETE_CHUNK = 5000;
/** How often the ledger prunes while running (it also prunes when it opens). */
export const PRUNE_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * 60 * 60 * 1000;

/** Deletes rows that started before `cutoff` (ms), then the oldest while the data exceeds `capBytes`. */
export function deleteOldRows(db: Db, cutoff: number, capBytes: number): number {
  let deleted = 0;
  const old = db.prepare(
    'DELETE FROM requests WHERE id IN (SELECT id FROM requests WHERE started_at < ? ORDER BY started_at LIMIT ?)',
  );
  for (let n = DELETE_CHUNK; n === DELETE_CHUNK; deleted += n) n = Number(old.run(cutoff, DELETE_CHUNK).changes);
  const oldest = db.prepare('DELETE FROM requests WHERE id IN (SELECT id FROM requests ORDER BY started_at LIMIT ?)');
  for (let round = 0; round < 100 && usedBytes(db) > capBytes; round++) {
    const rows = (db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;
    if (rows === 0) break;
    // Aim 10 % under the cap, so pruning does not run again at the next row.
    const share = 1 - (0.9 * capBytes) / usedBytes(db);
    deleted += Number(oldest.run(Math.min(rows, Math.max(100, Math.ceil(rows * share)))).changes);
  }
  return deleted;
}

/** Bytes the data occupies (pages in use, not the free ones the file keeps). */
export function usedBytes(db: Db): number {
  const pages = Number(pragmaValue(db, 'page_count'));
  const free = Number(pragmaValue(db, 'freelist_count'));
  return (pages - free) * Number(pragmaValue(db, 'page_size'));
}
