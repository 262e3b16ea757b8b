// The ledger over a real SQLite file in a temporary directory (never a mock): batching, reads, retention, the
// size cap, recovery from a corrupt file, permissions, quota persistence and body capture.

import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DatabaseSync } from 'node:sqlite';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LedgerOptions } from './ledger-options.js';
import { UsageLedger } from './ledger.js';
import { inTransaction, isCorruption, pragmaValue, SCHEMA_VERSION } from './open-db.js';
import type { UsageRecord } from './types.js';

let dir: string;
const open: UsageLedger[] = [];
const DAY = 86_400_000;

function ledger(opts: Partial<LedgerOptions> = {}): UsageLedger {
  const l = UsageLedger.open({ dataDir: dir, retentionDays: 90, maxMb: 512, ...opts });
  open.push(l);
  return l;
}

let seq = 0;
function rec(over: Partial<UsageRecord> = {}): UsageRecord {
  seq++;
  return {
    requestId: `req_${seq}`,
    startedAt: 1_795_000_000_000 + seq,
    mode: 'direct',
    route: '/api/v1/messages',
    method: 'POST',
    streamed: true,
    modelRequested: 'assistant-sonnet-4',
    modelServed: 'assistant-sonnet-4',
    client: 'anthropic-js',
    status: 200,
    outcome: 'ok',
    errorType: null,
    tokens: { input: 10, output: 5, cacheRead: null, cacheWrite: null },
    ttftMs: 100,
    durationMs: 250,
    ...over,
  };
}

function countOnDisk(): number {
  const db = new DatabaseSync(join(dir, 'usage.db'), { readOnly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

beforeEach(() => {
  dir = join(mkdtempSync(join(tmpdir(), 'usage-ledger-')), 'data');
});

afterEach(() => {
  for (const l of open.splice(0)) l.close();
  rmSync(join(dir, '..'), { recursive: true, force: true });
});

describe('UsageLedger writes', () => {
  it('creates an owner-only directory and file in WAL mode with a schema version', () => {
    ledger();
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'usage.db')).mode & 0o777).toBe(0o600);
    const db = new DatabaseSync(join(dir, 'usage.db'), { readOnly: true });
    expect(pragmaValue(db, 'journal_mode')).toBe('wal');
    expect(pragmaValue(db, 'user_version')).toBe(SCHEMA_VERSION);
    db.close();
  });

  it('queues records and writes them in one batch after the flush interval, not on the request path', async () => {
    const l = ledger({ flushMs: 100 });
    for (let i = 0; i < 50; i++) l.record(rec());
    expect(countOnDisk()).toBe(0);
    await new Promise((r) => setTimeout(r, 400));
    expect(countOnDisk()).toBe(50);
  });

  it('writes as soon as flushRows rows are queued, at the end of the event loop turn rather than at the timer', async () => {
    const l = ledger({ flushMs: 60_000, flushRows: 10 });
    for (let i = 0; i < 9; i++) l.record(rec());
    await new Promise((r) => setImmediate(r));
    expect(countOnDisk()).toBe(0);
    l.record(rec());
    expect(countOnDisk()).toBe(0); // record() itself never writes
    await new Promise((r) => setImmediate(r));
    expect(countOnDisk()).toBe(10);
  });

  it('keeps the rows of a failed write and retries at the timer, not on every record', async () => {
    const l = ledger({ flushMs: 150, flushRows: 5 });
    // Fault injection: the ledger's own connection refuses to prepare statements, as a full disk would fail writes.
    const db = (l as unknown as { db: { prepare: (sql: string) => unknown } }).db;
    const prepare = db.prepare.bind(db);
    let attempts = 0;
    db.prepare = (sql: string) => {
      if (sql.startsWith('INSERT INTO requests')) {
        attempts++;
        throw new Error('database or disk is full');
      }
      return prepare(sql);
    };
    for (let i = 0; i < 5; i++) l.record(rec());
    await new Promise((r) => setImmediate(r));
    expect(attempts).toBe(1);
    for (let i = 0; i < 20; i++) l.record(rec());
    await new Promise((r) => setImmediate(r));
    expect(attempts).toBe(1);
    db.prepare = prepare;
    await new Promise((r) => setTimeout(r, 400));
    expect(countOnDisk()).toBe(25);
  });

  it('close() writes what is still queued', () => {
    const l = ledger({ flushMs: 60_000 });
    l.record(rec());
    l.record(rec());
    l.close();
    expect(countOnDisk()).toBe(2);
    l.record(rec()); // after close: ignored, no throw
  });

  it('keeps NULL for tokens that were not reported and never turns bad numbers into values', () => {
    const l = ledger();
    l.record(
      rec({
        requestId: 'none',
        tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
        ttftMs: null,
      }),
    );
    l.record(rec({ requestId: 'bad', tokens: { input: Number.NaN, output: -1, cacheRead: Infinity, cacheWrite: 3 } }));
    expect(l.request('none')?.record.tokens).toEqual({ input: null, output: null, cacheRead: null, cacheWrite: null });
    expect(l.request('none')?.record.ttftMs).toBeNull();
    expect(l.request('bad')?.record.tokens).toEqual({ input: null, output: null, cacheRead: null, cacheWrite: 3 });
  });
});

describe('UsageLedger reads', () => {
  it('pages newest first with mode and outcome filters and loses no row at a page edge', () => {
    const l = ledger();
    const base = 1_795_100_000_000;
    // Three rows share one millisecond across the first page edge.
    const times = [base + 9, base + 8, base + 7, base + 7, base + 7, base + 5, base + 4];
    times.forEach((t, i) =>
      l.record(
        rec({
          requestId: `p${i}`,
          startedAt: t,
          mode: i % 2 ? 'tool' : 'direct',
          outcome: i === 6 ? 'client_gone' : 'ok',
        }),
      ),
    );
    const seen: string[] = [];
    let before: number | undefined;
    for (let guard = 0; guard < 10; guard++) {
      const page = l.requests({ limit: 3, before });
      seen.push(...page.rows.map((r) => r.requestId));
      if (page.nextBefore === undefined) break;
      before = page.nextBefore;
    }
    expect(seen).toEqual(['p0', 'p1', 'p4', 'p3', 'p2', 'p5', 'p6']);
    expect(l.requests({ mode: 'tool' }).rows.map((r) => r.requestId)).toEqual(['p1', 'p3', 'p5']);
    expect(l.requests({ outcome: 'client_gone' }).rows.map((r) => r.requestId)).toEqual(['p6']);
  });

  it('summarises by model with errors, token sums, unreported tokens and nearest-rank TTFT percentiles', () => {
    const l = ledger();
    const from = 1_795_200_000_000;
    for (let i = 1; i <= 20; i++)
      l.record(
        rec({
          startedAt: from + i,
          modelServed: 'a',
          ttftMs: i * 10,
          tokens: { input: 1, output: 2, cacheRead: 3, cacheWrite: null },
        }),
      );
    l.record(
      rec({
        startedAt: from + 30,
        modelServed: 'b',
        outcome: 'upstream_error',
        status: 502,
        ttftMs: null,
        tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
      }),
    );
    l.record(
      rec({
        startedAt: from + 31,
        modelServed: null,
        modelRequested: null,
        outcome: 'rejected',
        status: 400,
        ttftMs: null,
        tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
      }),
    );
    l.record(
      rec({
        startedAt: from + 32,
        modelServed: 'b',
        outcome: 'client_gone',
        ttftMs: null,
        tokens: { input: 4, output: null, cacheRead: null, cacheWrite: null },
      }),
    );
    l.record(rec({ startedAt: from - 1, modelServed: 'a' })); // outside the range
    const s = l.summary(from, from + 100, 'model');
    expect(s.rows).toEqual([
      {
        key: 'a',
        requests: 20,
        errors: 0,
        tokens: { input: 20, output: 40, cacheRead: 60, cacheWrite: 0 },
        unreportedTokens: 0,
        ttftP50Ms: 100,
        ttftP95Ms: 190,
      },
      {
        key: 'b',
        requests: 2,
        errors: 1,
        tokens: { input: 4, output: 0, cacheRead: 0, cacheWrite: 0 },
        unreportedTokens: 1,
        ttftP50Ms: null,
        ttftP95Ms: null,
      },
      {
        key: 'unknown',
        requests: 1,
        errors: 1,
        tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        unreportedTokens: 0,
        ttftP50Ms: null,
        ttftP95Ms: null,
      },
    ]);
    expect(s.total).toEqual({
      requests: 23,
      errors: 2,
      tokens: { input: 24, output: 40, cacheRead: 60, cacheWrite: 0 },
      unreportedTokens: 1,
      ttftP50Ms: 100,
      ttftP95Ms: 190,
    });
    expect(l.summary(from, from + 100, 'mode').rows.map((r) => [r.key, r.requests])).toEqual([['direct', 23]]);
    const days = l.summary(from, from + 100, 'day').rows;
    expect(days).toHaveLength(1);
    expect(days[0].key).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('exports CSV oldest first, quoted per RFC 4180 and safe from spreadsheet formulas', async () => {
    const l = ledger();
    l.record(
      rec({
        requestId: 'c1',
        startedAt: Date.UTC(2026, 10, 20, 10),
        route: '/v1/"odd",path',
        client: '=HYPERLINK("x")',
        modelRequested: '@sum\nline',
      }),
    );
    l.record(
      rec({
        requestId: 'c0',
        startedAt: Date.UTC(2026, 10, 20, 9),
        tokens: { input: null, output: 7, cacheRead: null, cacheWrite: null },
        billingLane: 'plan',
      }),
    );
    const lines: string[] = [];
    for await (const line of l.exportCsv(Date.UTC(2026, 10, 20), Date.UTC(2026, 10, 21))) lines.push(line);
    expect(lines).toHaveLength(3);
    expect(lines[0]).toBe(
      'started_at,request_id,mode,method,route,streamed,model_requested,model_served,client,status,outcome,error_type,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,ttft_ms,duration_ms,billing_lane,refusal,tokens_partial,lane_carried,purpose\r\n',
    );
    expect(lines[1]).toBe(
      '2026-11-20T09:00:00.000Z,c0,direct,POST,/api/v1/messages,true,assistant-sonnet-4,assistant-sonnet-4,anthropic-js,200,ok,,,7,,,100,250,plan,,false,false,\r\n',
    );
    expect(lines[2]).toBe(
      '2026-11-20T10:00:00.000Z,c1,direct,POST,"/v1/""odd"",path",true,"\'@sum\nline",assistant-sonnet-4,"\'=HYPERLINK(""x"")",200,ok,,10,5,,,100,250,,,false,false,\r\n',
    );
  });

  it('streams a large export in chunks with every row once', async () => {
    const l = ledger();
    for (let i = 0; i < 1203; i++) l.record(rec({ startedAt: 1_795_300_000_000 + Math.floor(i / 3) }));
    let n = 0;
    const ids = new Set<string>();
    for await (const line of l.exportCsv(1_795_300_000_000, 1_795_300_000_000 + 1000)) {
      if (n++ > 0) ids.add(line.split(',')[1]);
    }
    expect(ids.size).toBe(1203);
    expect(n).toBe(1204);
  });
});

describe('UsageLedger upkeep', () => {
  it('prunes rows older than the retention at open and on prune()', () => {
    let now = 1_795_000_000_000;
    const l = ledger({ retentionDays: 2, now: () => now });
    l.record(rec({ requestId: 'old', startedAt: now - 3 * DAY }));
    l.record(rec({ requestId: 'new', startedAt: now - DAY }));
    expect(l.prune()).toBe(1);
    expect(l.requests().rows.map((r) => r.requestId)).toEqual(['new']);
    l.close();
    now += 2 * DAY;
    const again = ledger({ retentionDays: 2, now: () => now });
    expect(again.requests().rows).toEqual([]);
  });

  it('keeps the data under the size cap by dropping the oldest rows, and the file shrinks', () => {
    const l = ledger({ maxMb: 1 });
    const long = 'x'.repeat(200);
    for (let i = 0; i < 12_000; i++)
      l.record(rec({ requestId: `s${i}`, startedAt: 1_795_000_000_000 + i, route: long }));
    l.flush();
    expect(l.usedBytes()).toBeGreaterThan(2 * 1024 * 1024);
    const deleted = l.prune();
    expect(deleted).toBeGreaterThan(6000);
    expect(l.usedBytes()).toBeLessThanOrEqual(1024 * 1024);
    expect(statSync(join(dir, 'usage.db')).size).toBeLessThanOrEqual(1.2 * 1024 * 1024);
    const newest = l.requests({ limit: 1 }).rows[0];
    expect(newest.requestId).toBe('s11999');
  });

  it('moves a corrupt file aside, logs it, and starts a new database that works', () => {
    const warnings: string[] = [];
    ledger().close();
    open.length = 0;
    writeFileSync(join(dir, 'usage.db'), Buffer.alloc(8192, 0x5a));
    const l = ledger({
      logger: { info: () => {}, warn: (_o, m) => void warnings.push(m), error: (_o, m) => void warnings.push(m) },
    });
    expect(l.inMemory).toBe(false);
    expect(warnings.join(' ')).toMatch(/moved it aside/);
    expect(readdirSync(dir).some((f) => /^usage\.db\.corrupt-/.test(f))).toBe(true);
    l.record(rec({ requestId: 'after' }));
    expect(l.request('after')?.record.requestId).toBe('after');
    expect(statSync(join(dir, 'usage.db')).mode & 0o777).toBe(0o600);
  });

  it("tells SQLite's corruption answers from other errors, as node:sqlite reports them", () => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'garbage.db'), Buffer.alloc(8192, 0x5a));
    const bad = new DatabaseSync(join(dir, 'garbage.db'));
    let notADb: unknown;
    try {
      bad.prepare('SELECT count(*) FROM sqlite_master').get();
    } catch (err) {
      notADb = err;
    } finally {
      bad.close();
    }
    expect(notADb).toBeInstanceOf(Error);
    expect(isCorruption(notADb)).toBe(true);
    const good = new DatabaseSync(':memory:');
    let syntax: unknown;
    try {
      good.exec('NOT SQL');
    } catch (err) {
      syntax = err;
    }
    good.close();
    expect(isCorruption(syntax)).toBe(false);
    expect(isCorruption(new Error('plain'))).toBe(false);
  });

  it('on a runtime without node:sqlite, refuses to open with a message and leaves a good file where it is', () => {
    ledger().close();
    open.length = 0;
    const before = readdirSync(dir).sort();
    const spy = vi.spyOn(process, 'getBuiltinModule').mockReturnValue(undefined as never);
    try {
      expect(() => UsageLedger.open({ dataDir: dir, retentionDays: 90, maxMb: 10 })).toThrow(
        /has no node:sqlite; the usage ledger needs Node 22\.13/,
      );
    } finally {
      spy.mockRestore();
    }
    expect(readdirSync(dir).sort()).toEqual(before);
  });

  it('a transaction whose work throws is rolled back, and the next one commits', () => {
    const db = new DatabaseSync(':memory:');
    try {
      db.exec('CREATE TABLE t (v INTEGER)');
      expect(() =>
        inTransaction(db, () => {
          db.prepare('INSERT INTO t VALUES (1)').run();
          throw new Error('half-way');
        }),
      ).toThrow('half-way');
      // A constraint error that SQLite itself answers inside the transaction: rolled back the same way.
      db.exec('CREATE TABLE u (v INTEGER NOT NULL)');
      expect(() => inTransaction(db, () => db.prepare('INSERT INTO u VALUES (NULL)').run())).toThrow(/NOT NULL/);
      inTransaction(db, () => db.prepare('INSERT INTO t VALUES (2)').run());
      expect(db.prepare('SELECT v FROM t').all()).toEqual([{ v: 2 }]);
    } finally {
      db.close();
    }
  });

  it('runs in memory when the data directory cannot be created', () => {
    writeFileSync(join(dir, '..', 'file'), 'not a directory');
    const l = UsageLedger.open({ dataDir: join(dir, '..', 'file', 'data'), retentionDays: 90, maxMb: 10 });
    open.push(l);
    expect(l.inMemory).toBe(true);
    l.record(rec({ requestId: 'mem' }));
    expect(l.request('mem')?.record.requestId).toBe('mem');
  });
});

describe('UsageLedger quota windows', () => {
  it('keeps the latest value per source and window, at once in memory and across a restart', () => {
    let now = 1_795_382_158_000;
    const l = ledger({ now: () => now });
    l.upstreamHeaders('direct', {
      'anthropic-ratelimit-unified-5h-utilization': '0.18',
      'anthropic-ratelimit-unified-5h-reset': '1795400158',
    });
    l.cliRateLimit({ unifiedWindows: { seven_day: { utilization: 0.23, resetsAt: 1795734958, status: 'allowed' } } });
    now += 1000;
    l.upstreamHeaders('direct', {
      'anthropic-ratelimit-unified-5h-utilization': '0.2',
      'anthropic-ratelimit-unified-5h-reset': '1795400158',
    });
    l.upstreamHeaders('respapi', { 'x-codex-primary-used-percent': '40', 'x-codex-primary-window-minutes': '300' });
    l.upstreamHeaders('direct', { 'content-type': 'text/plain' }); // no quota: changes nothing
    const expected = [
      {
        source: 'cli',
        window: 'seven_day',
        utilization: 0.23,
        resetsAt: 1795734958,
        status: 'allowed',
        observedAt: 1_795_382_158_000,
      },
      {
        source: 'direct',
        window: 'five_hour',
        utilization: 0.2,
        resetsAt: 1795400158,
        status: null,
        observedAt: 1_795_382_159_000,
      },
      {
        source: 'respapi',
        window: 'five_hour',
        utilization: 0.4,
        resetsAt: null,
        status: null,
        observedAt: 1_795_382_159_000,
      },
    ];
    expect(l.quotaWindows()).toEqual(expected);
    l.close();
    open.length = 0;
    expect(ledger().quotaWindows()).toEqual(expected);
  });
});

describe('UsageLedger capture', () => {
  it('keeps nothing when capture is off', () => {
    const l = ledger();
    l.record(rec({ requestId: 'x' }));
    l.capture('x', { request: '{"a":1}', response: 'hi' });
    expect(l.request('x')?.bodies).toBeUndefined();
  });

  it('keeps the last N bodies, redacted and size-capped', () => {
    const l = ledger({ captureBodies: true, captureCount: 2 });
    for (const id of ['a', 'b', 'c']) {
      l.record(rec({ requestId: id }));
      l.capture(id, {
        request: { messages: [{ content: `key sk-ant-api03-${'A'.repeat(20)} for ${id}` }] },
        response: Buffer.from('é'.repeat(40_000)),
        headers: { authorization: 'Bearer abcdefghijkl', 'user-agent': 'curl/8' },
      });
    }
    expect(l.request('a')?.bodies).toBeUndefined();
    const c = l.request('c')?.bodies;
    expect(c?.request).toContain('[redacted] for c');
    expect(c?.request).not.toContain('AAAAAAAA');
    expect(c?.headers).toEqual({ authorization: '[redacted]', 'user-agent': 'curl/8' });
    expect(c?.truncated).toBe(true);
    expect(Buffer.byteLength(c?.response ?? '')).toBeLessThanOrEqual(64 * 1024);
    expect(c?.response?.endsWith('é')).toBe(true);
  });
});

// A usage.db written by the previous build (better-sqlite3, schema version 1, WAL, closed cleanly), kept in
// __fixtures__: the users' existing files must open on the runtime's own SQLite with every row and quota window.
describe('UsageLedger on a database written by the better-sqlite3 build', () => {
  const fixture = fileURLToPath(new URL('./__fixtures__/usage-v1-better-sqlite3.db', import.meta.url));
  const base = Date.UTC(2026, 10, 20, 12, 0, 0);

  it('opens it without moving it aside, with every row, the quota window, and the same settings', () => {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    copyFileSync(fixture, join(dir, 'usage.db'));
    const warnings: string[] = [];
    const l = ledger({
      retentionDays: 36_500,
      now: () => base + DAY,
      logger: { info: () => {}, warn: (_o, m) => void warnings.push(m), error: (_o, m) => void warnings.push(m) },
    });
    expect(warnings).toEqual([]);
    expect(l.inMemory).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes('corrupt'))).toEqual([]);
    const rows = l.requests({ limit: 10 }).rows;
    expect(rows.map((r) => r.requestId)).toEqual([
      'req_fixture_5',
      'req_fixture_4',
      'req_fixture_3',
      'req_fixture_2',
      'req_fixture_1',
    ]);
    expect(rows[4]).toEqual({
      requestId: 'req_fixture_1',
      startedAt: base + 60_000,
      mode: 'direct',
      route: '/api/v1/messages',
      method: 'POST',
      streamed: true,
      modelRequested: 'assistant-sonnet-4',
      modelServed: 'assistant-sonnet-4-20250514',
      client: 'anthropic-js',
      status: 200,
      outcome: 'ok',
      errorType: null,
      tokens: { input: 101, output: 21, cacheRead: 5, cacheWrite: null },
      ttftMs: 120.5,
      durationMs: 800.25,
      // Added by the migration to schema 2: nothing said then which lane paid, so it stays unknown.
      tokensPartial: false,
      billingLane: null,
      // Added by the migration to schema 3: a lane is carried only when a later proxy says so.
      laneCarried: false,
      refusal: null,
      // Added by the migration to schema 4: older rows are answers, not compactions.
      purpose: null,
    });
    expect(rows[1]).toMatchObject({
      requestId: 'req_fixture_4',
      mode: null,
      route: '/nowhere',
      streamed: false,
      outcome: 'rejected',
      modelRequested: null,
    });
    expect(rows[3].tokens).toEqual({ input: null, output: null, cacheRead: null, cacheWrite: null });
    expect(l.quotaWindows()).toEqual([
      {
        source: 'cli',
        window: 'five_hour',
        utilization: 0.82,
        resetsAt: 1_795_000_000,
        status: 'allowed_warning',
        observedAt: base + 10 * 3_600_000,
      },
    ]);
    const day = l.summary(base, base + DAY, 'mode');
    expect(day.total.requests).toBe(5);
    expect(day.total.tokens.input).toBe(101 + 7);

    l.record(
      rec({
        requestId: 'new-on-old-file',
        startedAt: base + DAY,
        billingLane: 'extra_usage',
        laneCarried: true,
        tokensPartial: true,
        tokens: { input: 3, output: null, cacheRead: null, cacheWrite: null },
      }),
    );
    // The migrated file keeps the new columns: the new row reads back with its lane and flag, the old ones unknown.
    expect(l.requests({ limit: 1 }).rows[0]).toMatchObject({
      requestId: 'new-on-old-file',
      billingLane: 'extra_usage',
      laneCarried: true,
      tokensPartial: true,
      refusal: null,
    });
    expect(l.summary(base, base + 2 * DAY, 'lane').rows.map((r) => [r.key, r.requests])).toEqual([
      ['extra_usage', 1],
      ['unknown', 5],
    ]);
    l.close();
    open.length = 0;
    const db = new DatabaseSync(join(dir, 'usage.db'), { readOnly: true });
    try {
      expect(pragmaValue(db, 'user_version')).toBe(SCHEMA_VERSION);
      expect(pragmaValue(db, 'journal_mode')).toBe('wal');
      expect(pragmaValue(db, 'auto_vacuum')).toBe(2); // INCREMENTAL, chosen when the old build created the file
      expect((db.prepare('SELECT count(*) AS n FROM requests').get() as { n: number }).n).toBe(6);
    } finally {
      db.close();
    }
  });
});
