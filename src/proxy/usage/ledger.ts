// The usage ledger (docs/usage.md): one row per request the proxy carried, in a SQLite file in the data
// directory, plus the latest value of each subscription quota window. The request path only pushes onto an
// in-memory queue (record() never touches the disk and never throws); a timer started by the first queued row
// writes the queue in one transaction FLUSH_MS later, so a kill -9 loses at most the rows of the last flush
// interval (docs/usage.md "Durability"), or sooner, at the end of the event loop's turn, once FLUSH_ROWS are
// queued. Reads flush first, so they always see every recorded row.

import type { StatementSync } from 'node:sqlite';
import type { QuotaNames } from '../profile.js';
import { CaptureStore, type CaptureInput } from './capture.js';
import { csvHeader, csvLine } from './csv.js';
import { FLUSH_MS, FLUSH_ROWS, quietLog, type LedgerLog, type LedgerOptions } from './ledger-options.js';
import { inTransaction, isCorruption, moveAside, openUsageDb, type Db } from './open-db.js';
import { insertParams, insertSql, requestRow, requestsPage, rowsBetween, summary, toRecord } from './queries.js';
import { quotaKey, quotaUpsertParams, quotaUpsertSql, readQuotaWindows } from './quota-rows.js';
import {
  defaultQuotaNames,
  parseCliOverage,
  parseCliRateLimit,
  parseProviderOverage,
  parseProviderQuotaHeaders,
  parseRespapiQuotaHeaders,
} from './quota-parse.js';
import { clientShares, extraUsageSince } from './queries.js';
import { DAY_MS, deleteOldRows, PRUNE_MS, usedBytes } from './retention.js';
import type {
  CapturedBodies,
  ClientShare,
  ExtraUsageUse,
  OverageState,
  QuotaSource,
  QuotaWindow,
  RequestPage,
  RequestQuery,
  SummaryBy,
  UsageRecord,
  UsageSink,
  UsageSummary,
} from './types.js';

/** Calls every listener; a listener's bug must not reach the request. */
function notifyAll<A extends unknown[]>(listeners: Iterable<(...args: A) => void>, ...args: A): void {
  for (const fn of listeners) {
    try {
      fn(...args);
    } catch {
      /* ignored */
    }
  }
}

export class UsageLedger implements UsageSink {
  private db: Db;
  readonly path: string;
  private memoryOnly: boolean;
  private queue: UsageRecord[] = [];
  private pendingQuota = new Map<string, QuotaWindow>();
  private quotas = new Map<string, QuotaWindow>();
  /** The latest overage state per source (in memory: the provider's overage window itself is a quota row). */
  private readonly overages = new Map<QuotaSource, OverageState>();
  private readonly quotaListeners = new Set<(w: QuotaWindow[], o: OverageState | null) => void>();
  private readonly listeners = new Set<(r: UsageRecord) => void>();
  private readonly captures: CaptureStore | undefined;
  private flushTimer: NodeJS.Timeout | undefined;
  private flushSoon: NodeJS.Immediate | undefined;
  private readonly pruneTimer: NodeJS.Timeout;
  private closed = false;
  private dropped = 0;
  private prepared: { db: Db; insert: StatementSync; upsert: StatementSync } | undefined;
  /** The last write failed (see schedule). */
  private failing = false;
  private readonly log: LedgerLog;
  private readonly now: () => number;
  private readonly flushMs: number;
  private readonly flushRows: number;
  private readonly names: QuotaNames;
  private readonly maxQueue: number;

  private constructor(private readonly opts: LedgerOptions) {
    this.log = opts.logger ?? quietLog;
    this.now = opts.now ?? Date.now;
    this.flushMs = opts.flushMs ?? FLUSH_MS;
    this.flushRows = opts.flushRows ?? FLUSH_ROWS;
    this.names = opts.quotaNames ?? defaultQuotaNames;
    this.maxQueue = opts.maxQueue ?? 100_000;
    this.captures = opts.captureBodies ? new CaptureStore(opts.captureCount ?? 50) : undefined;
    const opened = openUsageDb(opts.dataDir, opts.fileName ?? 'usage.db', this.log, this.now);
    this.db = opened.db;
    this.path = opened.path;
    this.memoryOnly = opened.inMemory;
    this.loadQuotas();
    this.prune();
    this.pruneTimer = setInterval(() => this.prune(), opts.pruneMs ?? PRUNE_MS);
    this.pruneTimer.unref();
  }

  /** Opens (or creates) the database; never throws for a bad file (see open-db.ts). */
  static open(opts: LedgerOptions): UsageLedger {
    return new UsageLedger(opts);
  }

  /** True when no file could be used and rows live in memory for this run only. */
  get inMemory(): boolean {
    return this.memoryOnly;
  }

  // ---- UsageSink: called on the request path; O(1), no I/O, never throws ----

  record(row: UsageRecord): void {
    if (this.closed) return;
    if (this.queue.length >= this.maxQueue) {
      // Only while the database refuses writes; drop a tenth at once so this stays O(1) amortised.
      const n = Math.max(1, Math.floor(this.maxQueue / 10));
      this.queue.splice(0, n);
      this.dropped += n;
    }
    this.queue.push(row);
    this.schedule();
    notifyAll(this.listeners, row);
  }

  upstreamHeaders(source: QuotaSource, headers: Record<string, string | string[] | undefined>): void {
    try {
      const at = this.now();
      const overage = source === 'respapi' ? null : parseProviderOverage(headers, at, this.names, source);
      if (overage) this.overages.set(source, overage);
      this.observe(
        source === 'respapi'
          ? parseRespapiQuotaHeaders(headers, at, this.names)
          : parseProviderQuotaHeaders(headers, at, this.names, source),
        overage,
      );
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'usage ledger: could not read quota headers');
    }
  }

  cliRateLimit(info: unknown): void {
    try {
      const at = this.now();
      const overage = parseCliOverage(info, at);
      if (overage) this.overages.set('cli', overage);
      this.observe(parseCliRateLimit(info, at), overage);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'usage ledger: could not read a CLI rate-limit event');
    }
  }

  /** Keeps the request's bodies for the inspector when capture is on (CAPTURE_BODIES); a no-op otherwise. */
  capture(requestId: string, bodies: CaptureInput): void {
    if (!this.captures || this.closed) return;
    try {
      this.captures.put(requestId, bodies);
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'usage ledger: could not capture bodies');
    }
  }

  /** Called with every quota observation as it arrives (the alerts). Returns the unsubscribe function. */
  onQuota(fn: (windows: QuotaWindow[], overage: OverageState | null) => void): () => void {
    this.quotaListeners.add(fn);
    return () => void this.quotaListeners.delete(fn);
  }

  /** Called with every record as it arrives (metrics). Returns the unsubscribe function. */
  onRecord(fn: (r: UsageRecord) => void): () => void {
    this.listeners.add(fn);
    return () => void this.listeners.delete(fn);
  }

  // ---- writes ----

  private observe(rows: QuotaWindow[], overage: OverageState | null = null): void {
    if (this.closed) return;
    if (rows.length > 0 || overage) {
      notifyAll(this.quotaListeners, rows, overage);
    }
    if (rows.length === 0) return;
    for (const w of rows) {
      const key = quotaKey(w);
      const seen = this.quotas.get(key);
      if (seen && seen.observedAt > w.observedAt) continue;
      this.quotas.set(key, w);
      this.pendingQuota.set(key, w);
    }
    this.schedule();
  }

  /**
   * A write at the timer; or at the end of this turn of the event loop once FLUSH_ROWS are queued, unless the last
   * write failed: a disk that refuses writes is retried at the timer, not on every request.
   */
  private schedule(): void {
    if (this.closed || this.flushSoon) return;
    if (!this.failing && this.queue.length >= this.flushRows) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
      this.flushSoon = setImmediate(() => {
        this.flushSoon = undefined;
        this.flush();
      });
      this.flushSoon.unref();
      return;
    }
    if (this.flushTimer) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = undefined;
      this.flush();
    }, this.flushMs);
    this.flushTimer.unref();
  }

  /** Writes everything queued in one transaction. Returns the number of request rows written. */
  flush(): number {
    if (this.queue.length === 0 && this.pendingQuota.size === 0) return 0;
    const batch = this.queue;
    const quota = [...this.pendingQuota.values()];
    this.queue = [];
    this.pendingQuota.clear();
    try {
      this.write(batch, quota);
      this.failing = false;
      return batch.length;
    } catch (err) {
      if (isCorruption(err) && this.recover(err)) {
        try {
          this.write(batch, quota);
          this.failing = false;
          return batch.length;
        } catch {
          /* fall through: keep the rows queued */
        }
      }
      this.log.warn(
        { err: (err as Error).message, rows: batch.length },
        'usage ledger: write failed; rows kept for the next try',
      );
      this.queue = batch.concat(this.queue).slice(-this.maxQueue);
      for (const w of quota) if (!this.pendingQuota.has(quotaKey(w))) this.pendingQuota.set(quotaKey(w), w);
      this.failing = true;
      if (!this.closed) this.schedule();
      return 0;
    } finally {
      if (this.dropped > 0) {
        this.log.error(
          { dropped: this.dropped },
          'usage ledger: rows dropped because the database kept refusing writes',
        );
        this.dropped = 0;
      }
    }
  }

  /** The write statements, prepared once per database connection (a recovery opens a new one). */
  private statements(): { db: Db; insert: StatementSync; upsert: StatementSync } {
    if (this.prepared?.db !== this.db) {
      this.prepared = {
        db: this.db,
        insert: this.db.prepare(insertSql),
        upsert: this.db.prepare(quotaUpsertSql),
      };
    }
    return this.prepared;
  }

  private write(batch: UsageRecord[], quota: QuotaWindow[]): void {
    const { insert, upsert } = this.statements();
    inTransaction(this.db, () => {
      for (const r of batch) insert.run(...insertParams(r));
      for (const w of quota) upsert.run(...quotaUpsertParams(w));
    });
  }

  /** The file went bad while running: move it aside and continue on a fresh one (docs/usage.md "Recovery"). */
  private recover(err: unknown): boolean {
    if (this.memoryOnly) return false;
    this.log.error(
      { err: (err as Error).message },
      'usage ledger: the database is corrupt; moving it aside and starting a new one',
    );
    try {
      this.db.close();
    } catch {
      /* already unusable */
    }
    try {
      moveAside(this.path, this.now());
    } catch {
      /* openUsageDb tries again and falls back to memory */
    }
    const opened = openUsageDb(this.opts.dataDir, this.opts.fileName ?? 'usage.db', this.log, this.now);
    this.db = opened.db;
    this.memoryOnly = opened.inMemory;
    this.pendingQuota = new Map(this.quotas);
    return true;
  }

  private loadQuotas(): void {
    for (const w of readQuotaWindows(this.db)) this.quotas.set(quotaKey(w), w);
  }

  /**
   * Deletes rows older than the retention, then the oldest rows while the data exceeds the size cap, in chunks,
   * and gives the freed pages back to the file system. Returns the number of rows deleted.
   */
  prune(): number {
    if (this.closed) return 0;
    try {
      this.flush();
      const cutoff = this.now() - this.opts.retentionDays * DAY_MS;
      const deleted = deleteOldRows(this.db, cutoff, this.opts.maxMb * 1024 * 1024);
      if (deleted > 0) {
        this.db.exec('PRAGMA incremental_vacuum');
        this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
        this.log.info({ deleted }, 'usage ledger: pruned old rows');
      }
      return deleted;
    } catch (err) {
      this.log.warn({ err: (err as Error).message }, 'usage ledger: pruning failed');
      return 0;
    }
  }

  /** Bytes the data occupies (pages in use, not the free ones the file keeps). */
  usedBytes(): number {
    return usedBytes(this.db);
  }

  // ---- reads (UsageReader for the window, and the HTTP routes) ----

  requests(query: RequestQuery = {}): RequestPage {
    this.flush();
    return requestsPage(this.db, query);
  }

  request(requestId: string): { record: UsageRecord; bodies?: CapturedBodies } | undefined {
    this.flush();
    const row = requestRow(this.db, requestId);
    if (!row) return undefined;
    const bodies = this.captures?.get(requestId);
    return bodies ? { record: toRecord(row), bodies } : { record: toRecord(row) };
  }

  summary(from: number, to: number, by: SummaryBy): UsageSummary {
    this.flush();
    return summary(this.db, from, to, by);
  }

  /** The latest observation of each window, by source then window name. From memory: no I/O. */
  quotaWindows(): QuotaWindow[] {
    return [...this.quotas.values()].sort(
      (a, b) => a.source.localeCompare(b.source) || a.window.localeCompare(b.window),
    );
  }

  /** The latest overage (extra usage) state per source. From memory: no I/O. */
  overageStates(): OverageState[] {
    return [...this.overages.values()].sort((a, b) => a.source.localeCompare(b.source));
  }

  /** Requests billed to extra usage since `since` (ms). */
  extraUsage(since: number): ExtraUsageUse {
    this.flush();
    return extraUsageSince(this.db, since);
  }

  /** What each client family used of [from, to], most first. */
  clientShares(from: number, to: number): ClientShare[] {
    this.flush();
    return clientShares(this.db, from, to);
  }

  /** CSV lines (header first) of every row that started in [from, to], oldest first, read in chunks. */
  async *exportCsv(from: number, to: number): AsyncGenerator<string> {
    this.flush();
    yield csvHeader();
    for (const chunk of rowsBetween(this.db, from, to)) {
      for (const r of chunk) yield csvLine(r);
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (this.closed) return;
    }
  }

  /** Writes what is queued and closes the file. Further records are ignored. */
  close(): void {
    if (this.closed) return;
    clearTimeout(this.flushTimer);
    clearImmediate(this.flushSoon);
    clearInterval(this.pruneTimer);
    this.flush();
    this.closed = true;
    try {
      this.db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      /* closing anyway */
    }
    this.db.close();
  }
}
