// Reads of the usage database (docs/usage.md "Endpoints"): the request history page, the summary with TTFT
// percentiles computed in SQL (window functions, so no table is pulled into memory), and rows by time range for
// the CSV export. Functions of a database handle; the ledger flushes its queue before calling them.

import { cacheReadShare } from '../../shared/cache-share.js';
import type { SQLInputValue } from 'node:sqlite';
import type { Db } from './open-db.js';
import type { ModeName } from '../../shared/modes.js';
import type {
  BillingLane,
  BillingRefusal,
  ClientShare,
  ExtraUsageUse,
  Outcome,
  RequestPage,
  RequestQuery,
  SummaryBy,
  SummaryRow,
  UsageRecord,
  UsageSummary,
} from './types.js';

interface RequestRow {
  id: number;
  request_id: string;
  started_at: number;
  mode: string | null;
  route: string;
  method: string;
  streamed: number;
  model_requested: string | null;
  model_served: string | null;
  client: string | null;
  status: number;
  outcome: string;
  error_type: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  ttft_ms: number | null;
  duration_ms: number;
  billing_lane: string | null;
  refusal: string | null;
  tokens_partial: number;
  lane_carried: number;
  purpose: string | null;
}

export const insertSql = `INSERT INTO requests (request_id, started_at, mode, route, method, streamed, model_requested, model_served,
  client, status, outcome, error_type, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, ttft_ms, duration_ms,
  billing_lane, refusal, tokens_partial, lane_carried, purpose)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function count(n: number | null | undefined): number | null {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? Math.round(n) : null;
}

function ms(n: number | null | undefined): number | null {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
}

/** The parameters of insertSql for one record; numbers that are not finite become NULL rather than failing. */
export function insertParams(r: UsageRecord): SQLInputValue[] {
  return [
    String(r.requestId),
    Math.round(r.startedAt),
    r.mode ?? null,
    String(r.route),
    String(r.method),
    r.streamed ? 1 : 0,
    r.modelRequested ?? null,
    r.modelServed ?? null,
    r.client ?? null,
    Math.round(r.status) || 0,
    r.outcome,
    r.errorType ?? null,
    count(r.tokens?.input),
    count(r.tokens?.output),
    count(r.tokens?.cacheRead),
    count(r.tokens?.cacheWrite),
    ms(r.ttftMs),
    ms(r.durationMs) ?? 0,
    r.billingLane ?? null,
    r.refusal ?? null,
    r.tokensPartial ? 1 : 0,
    r.billingLane && r.laneCarried ? 1 : 0,
    r.purpose ?? null,
  ];
}

export function toRecord(row: RequestRow): UsageRecord {
  return {
    requestId: row.request_id,
    startedAt: row.started_at,
    mode: row.mode as ModeName | null,
    route: row.route,
    method: row.method,
    streamed: row.streamed === 1,
    modelRequested: row.model_requested,
    modelServed: row.model_served,
    client: row.client,
    status: row.status,
    outcome: row.outcome as Outcome,
    errorType: row.error_type,
    tokens: {
      input: row.input_tokens,
      output: row.output_tokens,
      cacheRead: row.cache_read_tokens,
      cacheWrite: row.cache_write_tokens,
    },
    tokensPartial: row.tokens_partial === 1,
    billingLane: (row.billing_lane as BillingLane | null) ?? null,
    laneCarried: row.lane_carried === 1,
    purpose: row.purpose === 'compaction' ? 'compaction' : null,
    refusal: (row.refusal as BillingRefusal | null) ?? null,
    ttftMs: row.ttft_ms,
    durationMs: row.duration_ms,
  };
}

/** The newest row of a request id (a retried id has more than one), or undefined. */
export function requestRow(db: Db, requestId: string): RequestRow | undefined {
  return db.prepare('SELECT * FROM requests WHERE request_id = ? ORDER BY id DESC LIMIT 1').get(requestId) as
    RequestRow | undefined;
}

export const MAX_PAGE = 1000;

/**
 * Newest first. A page never ends in the middle of a group of rows that started in the same millisecond (those
 * are left for the next page, whose `before` is one ms after them), so paging loses no row; only a group larger
 * than a whole page is cut.
 */
export function requestsPage(db: Db, q: RequestQuery): RequestPage {
  const limit = Math.min(Math.max(Math.floor(q.limit ?? 50), 1), MAX_PAGE);
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  if (q.before !== undefined) {
    where.push('started_at < ?');
    params.push(q.before);
  }
  if (q.mode !== undefined) {
    where.push('mode = ?');
    params.push(q.mode);
  }
  if (q.outcome !== undefined) {
    where.push('outcome = ?');
    params.push(q.outcome);
  }
  if (q.lane === 'unknown') where.push('billing_lane IS NULL');
  else if (q.lane !== undefined) {
    where.push('billing_lane = ?');
    params.push(q.lane);
  }
  const sql = `SELECT * FROM requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY started_at DESC, id DESC LIMIT ?`;
  const rows = db.prepare(sql).all(...params, limit + 1) as unknown as RequestRow[];
  if (rows.length <= limit) return { rows: rows.map(toRecord) };
  const page = rows.slice(0, limit);
  const edge = page[page.length - 1].started_at;
  if (rows[limit].started_at === edge) {
    const whole = page.filter((r) => r.started_at !== edge);
    if (whole.length > 0) return { rows: whole.map(toRecord), nextBefore: edge + 1 };
  }
  return { rows: page.map(toRecord), nextBefore: edge };
}

const keyExpr: Record<SummaryBy, string> = {
  day: "strftime('%Y-%m-%d', started_at / 1000, 'unixepoch', 'localtime')",
  model: 'COALESCE(model_served, model_requested)',
  mode: 'mode',
  client: 'client',
  lane: 'billing_lane',
};

/** Outcomes counted as errors: the proxy or an upstream failed. A client that left is not an error. */
const errorOutcomes: Outcome[] = ['rejected', 'upstream_error', 'timeout', 'error'];

interface SumRow {
  k: string | null;
  requests: number;
  errors: number;
  input: number;
  output: number;
  cache_read: number;
  cache_write: number;
  unreported: number;
}

interface PctRow {
  k: string | null;
  p50: number | null;
  p95: number | null;
}

function summaryRows(db: Db, from: number, to: number, key: string): Array<Omit<SummaryRow, 'key'> & { key: string }> {
  const errs = errorOutcomes.map((o) => `'${o}'`).join(',');
  const sums = db
    .prepare(
      `SELECT ${key} AS k, count(*) AS requests,
         sum(outcome IN (${errs})) AS errors,
         coalesce(sum(input_tokens), 0) AS input, coalesce(sum(output_tokens), 0) AS output,
         coalesce(sum(cache_read_tokens), 0) AS cache_read, coalesce(sum(cache_write_tokens), 0) AS cache_write,
         sum(input_tokens IS NULL AND output_tokens IS NULL AND cache_read_tokens IS NULL AND cache_write_tokens IS NULL
             AND outcome != 'rejected' AND model_requested IS NOT NULL) AS unreported
       FROM requests WHERE started_at >= ? AND started_at <= ? GROUP BY k ORDER BY k IS NULL, k`,
    )
    .all(from, to) as unknown as SumRow[];
  // Nearest-rank percentiles: rank ceil(n * p / 100), written in integer arithmetic.
  const pcts = db
    .prepare(
      `WITH t AS (SELECT ${key} AS k, ttft_ms AS v,
                  row_number() OVER (PARTITION BY ${key} ORDER BY ttft_ms) AS rn,
                  count(*) OVER (PARTITION BY ${key}) AS n
                FROM requests WHERE started_at >= ? AND started_at <= ? AND ttft_ms IS NOT NULL)
       SELECT k, max(CASE WHEN rn = max(1, (n * 50 + 99) / 100) THEN v END) AS p50,
                 max(CASE WHEN rn = max(1, (n * 95 + 99) / 100) THEN v END) AS p95
       FROM t GROUP BY k`,
    )
    .all(from, to) as unknown as PctRow[];
  const byKey = new Map(pcts.map((p) => [p.k, p]));
  return sums.map((s) => ({
    key: s.k ?? 'unknown',
    requests: s.requests,
    errors: s.errors,
    tokens: { input: s.input, output: s.output, cacheRead: s.cache_read, cacheWrite: s.cache_write },
    unreportedTokens: s.unreported,
    ttftP50Ms: byKey.get(s.k)?.p50 ?? null,
    ttftP95Ms: byKey.get(s.k)?.p95 ?? null,
  }));
}

export function summary(db: Db, from: number, to: number, by: SummaryBy): UsageSummary {
  const rows = summaryRows(db, from, to, keyExpr[by]);
  const [all] = summaryRows(db, from, to, "'all'");
  const { key: _key, ...total } = all ?? {
    key: 'all',
    requests: 0,
    errors: 0,
    tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    unreportedTokens: 0,
    ttftP50Ms: null,
    ttftP95Ms: null,
  };
  return { from, to, by, rows, total };
}

/** Oldest first, in chunks of `chunk` rows by keyset (no statement stays open between chunks). */
export function* rowsBetween(db: Db, from: number, to: number, chunk = 500): Generator<UsageRecord[]> {
  const stmt = db.prepare(
    'SELECT * FROM requests WHERE started_at >= ? AND started_at <= ? AND (started_at > ? OR (started_at = ? AND id > ?)) ORDER BY started_at, id LIMIT ?',
  );
  let lastAt = from - 1;
  let lastId = 0;
  for (;;) {
    const rows = stmt.all(from, to, lastAt, lastAt, lastId, chunk) as unknown as RequestRow[];
    if (rows.length === 0) return;
    yield rows.map(toRecord);
    const last = rows[rows.length - 1];
    lastAt = last.started_at;
    lastId = last.id;
    if (rows.length < chunk) return;
  }
}

const tokenSum =
  'coalesce(input_tokens, 0) + coalesce(output_tokens, 0) + coalesce(cache_read_tokens, 0) + coalesce(cache_write_tokens, 0)';

/** The prompt's parts of a group of rows: plain input (pi), cache reads (cr), cache writes (cw). */
const cacheSums =
  'coalesce(sum(input_tokens), 0) AS pi, coalesce(sum(cache_read_tokens), 0) AS cr, coalesce(sum(cache_write_tokens), 0) AS cw';

/** Requests billed to extra usage that started at or after `since` (ms). */
export function extraUsageSince(db: Db, since: number): ExtraUsageUse {
  const row = db
    .prepare(
      `SELECT count(*) AS n, coalesce(sum(${tokenSum}), 0) AS t, min(started_at) AS first FROM requests WHERE billing_lane = 'extra_usage' AND started_at >= ?`,
    )
    .get(since) as {
    n: number;
    t: number;
    first: number | null;
  };
  return { since, requests: row.n, tokens: row.t, firstAt: row.first };
}

/** Requests and tokens of each client family in [from, to] (`unknown` for none), most tokens first. */
export function clientShares(db: Db, from: number, to: number): ClientShare[] {
  const rows = db
    .prepare(
      `SELECT coalesce(client, 'unknown') AS c, count(*) AS n, coalesce(sum(${tokenSum}), 0) AS t, ${cacheSums} FROM requests WHERE started_at >= ? AND started_at <= ? AND mode IS NOT NULL GROUP BY c`,
    )
    .all(from, to) as Array<{ c: string; n: number; t: number; pi: number; cr: number; cw: number }>;
  const tokens = rows.reduce((a, r) => a + r.t, 0);
  const requests = rows.reduce((a, r) => a + r.n, 0);
  return rows
    .map((r) => ({
      client: r.c,
      requests: r.n,
      tokens: r.t,
      share: tokens > 0 ? r.t / tokens : requests > 0 ? r.n / requests : 0,
      cacheReadShare: cacheReadShare({ input: r.pi, cacheRead: r.cr, cacheWrite: r.cw }),
    }))
    .map((r) => ({ ...r, share: Math.round(r.share * 10_000) / 10_000 }))
    .sort((a, b) => b.tokens - a.tokens || b.requests - a.requests || a.client.localeCompare(b.client));
}
