// The usage ledger's settings (docs/configuration.md, docs/usage.md): what UsageLedger.open takes, the proxy's
// settings mapped onto it, and the write batching's two constants.

import type { Config } from '../config.js';
import type { QuotaNames } from '../profile.js';
import type { OpenLog } from './open-db.js';

/**
 * How long queued rows wait for their write. Each write has a fixed cost (its transaction, and the pages of the
 * table and of each index it rewrites in the WAL), paid again for every few rows when writes come often: on a light
 * load, frequent small writes cost the proxy's main thread more per request than fewer, larger ones
 * (docs/performance.md "The usage ledger"). Short enough that a kill -9 loses under a second of rows, with the
 * bookkeeping's own short wait before a row is queued (docs/usage.md "Durability").
 */
export const FLUSH_MS = 500;
/**
 * A write holds the event loop for as long as its rows take, and every request with a step due meanwhile waits for
 * it. At thousands of requests a second a FLUSH_MS batch is thousands of rows, tens of ms in one piece; capped, a
 * write stays under about 2 ms. The cap is not lower because each write has a fixed cost (docs/performance.md "The
 * usage ledger").
 */
export const FLUSH_ROWS = 256;

export interface LedgerLog extends OpenLog {
  info(obj: object, msg: string): void;
}

export interface LedgerOptions {
  dataDir: string;
  retentionDays: number;
  maxMb: number;
  captureBodies?: boolean;
  captureCount?: number;
  logger?: LedgerLog;
  now?: () => number;
  flushMs?: number;
  /** Rows queued that start a write at the end of this turn of the event loop instead of at the timer. */
  flushRows?: number;
  pruneMs?: number;
  fileName?: string;
  quotaNames?: QuotaNames;
  /** Rows kept waiting while the database refuses writes (a full disk); beyond it the oldest are dropped. */
  maxQueue?: number;
}

/** The ledger's settings from the proxy's config (docs/configuration.md). */
export function ledgerOptions(
  config: Pick<Config, 'dataDir' | 'usageRetentionDays' | 'usageMaxMb' | 'captureBodies' | 'captureBodiesCount'>,
  logger?: LedgerLog,
): LedgerOptions {
  return {
    dataDir: config.dataDir,
    retentionDays: config.usageRetentionDays,
    maxMb: config.usageMaxMb,
    captureBodies: config.captureBodies,
    captureCount: config.captureBodiesCount,
    logger,
  };
}

/** The ledger's log when none is given: silent. */
export const quietLog: LedgerLog = { info: () => {}, warn: () => {}, error: () => {} };
