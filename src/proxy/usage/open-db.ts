// Opens the usage database (docs/usage.md "Where"): a real SQLite file in the data directory, owner-only, WAL
// with synchronous=NORMAL (a commit survives a process kill; only a power cut can lose the last commits), and a
// schema versioned by user_version. A database that is corrupt or cannot be opened never stops the proxy: the
// file (and its -wal/-shm) is moved aside as `<name>.corrupt-<time>` and a fresh one is created; when even that
// fails (a read-only disk), the ledger runs on an in-memory database for this run and says so.

import { chmodSync, closeSync, existsSync, mkdirSync, openSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';

// The runtime's own SQLite (docs/usage.md "Why node:sqlite"): no native module to build or to rebuild for
// Electron's ABI, the same library in the headless proxy, the tests and the desktop app.
export type Db = DatabaseSync;

/** node:sqlite, fetched when a database is opened rather than imported: on a runtime without it (Node before
 * 22.13) opening the ledger fails with this message, which the desktop app turns into an empty Usage tab
 * instead of a main process that cannot load (docs/desktop.md). */
function sqlite(): typeof import('node:sqlite') {
  const mod = process.getBuiltinModule('node:sqlite') as typeof import('node:sqlite') | undefined;
  if (!mod)
    throw new Error(
      `this runtime (Node ${process.versions.node}) has no node:sqlite; the usage ledger needs Node 22.13 or later`,
    );
  return mod;
}

export const SCHEMA_VERSION = 4;

/** Each entry migrates from version (index) to version (index + 1). Never edit a shipped entry; append. */
const migrations: string[] = [
  `CREATE TABLE requests (
     id INTEGER PRIMARY KEY,
     request_id TEXT NOT NULL,
     started_at INTEGER NOT NULL,
     mode TEXT,
     route TEXT NOT NULL,
     method TEXT NOT NULL,
     streamed INTEGER NOT NULL,
     model_requested TEXT,
     model_served TEXT,
     client TEXT,
     status INTEGER NOT NULL,
     outcome TEXT NOT NULL,
     error_type TEXT,
     input_tokens INTEGER,
     output_tokens INTEGER,
     cache_read_tokens INTEGER,
     cache_write_tokens INTEGER,
     ttft_ms REAL,
     duration_ms REAL NOT NULL
   );
   CREATE INDEX requests_started ON requests(started_at);
   CREATE INDEX requests_mode_started ON requests(mode, started_at);
   CREATE INDEX requests_outcome_started ON requests(outcome, started_at);
   CREATE INDEX requests_request_id ON requests(request_id);
   CREATE TABLE quota_windows (
     source TEXT NOT NULL,
     window TEXT NOT NULL,
     utilization REAL,
     resets_at INTEGER,
     status TEXT,
     observed_at INTEGER NOT NULL,
     PRIMARY KEY (source, window)
   ) WITHOUT ROWID;`,
  // 1 -> 2: which lane paid, the billing refusal met, and a flag for token counts of an answer that ended before its
  // final usage (docs/usage.md "Lanes"). Rows written before stay without a lane (unknown), as nothing said then.
  `ALTER TABLE requests ADD COLUMN billing_lane TEXT;
   ALTER TABLE requests ADD COLUMN refusal TEXT;
   ALTER TABLE requests ADD COLUMN tokens_partial INTEGER NOT NULL DEFAULT 0;
   CREATE INDEX requests_lane_started ON requests(billing_lane, started_at);`,
  // 2 -> 3: the lane was carried from the CLI process's last report, not reported for this request (docs/usage.md
  // "Lanes"). A column with a default: SQLite adds it without rewriting the table, and older rows read as reported.
  `ALTER TABLE requests ADD COLUMN lane_carried INTEGER NOT NULL DEFAULT 0;`,
  // 3 -> 4: why a request was made when not for an answer: 'compaction', a conversation's summary (docs/usage.md,
  // docs/compaction.md). Older rows read as answers.
  `ALTER TABLE requests ADD COLUMN purpose TEXT;`,
];

interface OpenedDb {
  db: Db;
  path: string;
  /** True when no file could be used and the database lives in memory for this run. */
  inMemory: boolean;
  /** Where a broken file was moved, when one was. */
  movedAside?: string;
}

export interface OpenLog {
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** The value of a pragma that answers one row of one column (`user_version`, `page_count`, `journal_mode`...). */
export function pragmaValue(db: Db, name: string): unknown {
  const row = db.prepare(`PRAGMA ${name}`).get();
  return row ? Object.values(row)[0] : undefined;
}

/** Runs fn in one transaction: committed when it returns, rolled back when it throws. */
export function inTransaction<T>(db: Db, fn: () => T): T {
  db.exec('BEGIN');
  try {
    const result = fn();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    // SQLite may already have rolled back (some errors end the transaction themselves); `isTransaction` would
    // tell, but Node has it only from 22.16, and engines allows 22.13.
    try {
      db.exec('ROLLBACK');
    } catch {
      /* no transaction was open any more */
    }
    throw err;
  }
}

function prepare(db: Db): void {
  // auto_vacuum must be chosen before the first table exists; INCREMENTAL lets pruning give pages back to the OS.
  if (pragmaValue(db, 'user_version') === 0) db.exec('PRAGMA auto_vacuum = INCREMENTAL');
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA busy_timeout = 2000');
  let version = Number(pragmaValue(db, 'user_version'));
  if (version > SCHEMA_VERSION)
    throw new Error(`usage database has schema version ${version}, newer than this proxy's ${SCHEMA_VERSION}`);
  while (version < SCHEMA_VERSION) {
    const step = migrations[version];
    inTransaction(db, () => {
      db.exec(step);
      db.exec(`PRAGMA user_version = ${version + 1}`);
    });
    version++;
  }
  // Reading every table once makes a file whose header is fine but whose schema pages are garbage fail here.
  db.prepare('SELECT count(*) FROM quota_windows').get();
  db.prepare('SELECT id FROM requests ORDER BY started_at DESC LIMIT 1').get();
}

function restrict(path: string): void {
  for (const p of [path, `${path}-wal`, `${path}-shm`]) {
    try {
      if (existsSync(p)) chmodSync(p, 0o600);
    } catch {
      /* best effort: on Windows modes do not apply */
    }
  }
}

export function moveAside(path: string, now: number): string | undefined {
  const stamp = new Date(now).toISOString().replace(/[:.]/g, '-');
  const target = `${path}.corrupt-${stamp}`;
  let moved: string | undefined;
  for (const suffix of ['', '-wal', '-shm']) {
    if (!existsSync(path + suffix)) continue;
    renameSync(path + suffix, target + suffix);
    if (suffix === '') moved = target;
  }
  return moved;
}

function tryOpen(path: string): Db {
  // Created owner-only before SQLite opens it, so the file is never readable by others, not even for a moment;
  // SQLite gives its -wal and -shm files the database file's mode.
  closeSync(openSync(path, 'a', 0o600));
  const db = new (sqlite().DatabaseSync)(path);
  try {
    restrict(path);
    prepare(db);
    restrict(path);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

export function openUsageDb(dataDir: string, fileName: string, log: OpenLog, now: () => number = Date.now): OpenedDb {
  // Before any file is touched: a runtime without SQLite must not make a good database look corrupt.
  sqlite();
  const path = join(dataDir, fileName);
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (err) {
    log.error(
      { err: (err as Error).message, dataDir },
      'usage ledger: cannot create the data directory; keeping usage in memory for this run',
    );
    return { db: inMemory(), path, inMemory: true };
  }
  try {
    return { db: tryOpen(path), path, inMemory: false };
  } catch (first) {
    let movedAside: string | undefined;
    try {
      movedAside = moveAside(path, now());
      log.warn(
        { err: (first as Error).message, movedAside },
        'usage ledger: the database could not be opened; moved it aside and started a new one',
      );
      return { db: tryOpen(path), path, inMemory: false, movedAside };
    } catch (second) {
      log.error(
        { err: (second as Error).message, first: (first as Error).message },
        'usage ledger: no usable database file; keeping usage in memory for this run',
      );
      return { db: inMemory(), path, inMemory: true, movedAside };
    }
  }
}

function inMemory(): Db {
  const db = new (sqlite().DatabaseSync)(':memory:');
  prepare(db);
  return db;
}

const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/** SQLite's answer for a file that is not (or no longer) a database: node:sqlite gives SQLite's result code as
 * `errcode` (possibly an extended code, whose low byte is the primary one). */
export function isCorruption(err: unknown): boolean {
  const code = (err as { errcode?: unknown })?.errcode;
  if (typeof code !== 'number') return false;
  const primary = code & 0xff;
  return primary === SQLITE_CORRUPT || primary === SQLITE_NOTADB;
}
