// An in-memory stand-in for the usage ledger (UsageReader) over realistic records: 30 days of requests across
// the three modes and a few models, some errors, streamed and not, token counts as reported (null where the
// route reports none). Used where the real ledger (src/proxy/usage/) is not wired in yet; its answers follow the
// contract in src/proxy/usage/types.ts, computed from the records, not hard-coded.

import type { UsageReader } from '../../src/main/usage-reader.js';
import type {
  CapturedBodies,
  QuotaWindow,
  RequestQuery,
  SummaryBy,
  SummaryRow,
  UsageRecord,
  UsageSummary,
} from '../../src/proxy/control-api.js';

const DAY = 86_400_000;

/** A deterministic pseudo-random sequence (so screenshots and assertions are stable). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export function sampleRecords(now: number, count = 400): UsageRecord[] {
  const rand = rng(42);
  const shapes = [
    {
      mode: 'tool',
      route: '/compat/v1/chat/completions',
      model: 'assistant-sonnet-4-20250514',
      client: 'openai-python',
    },
    { mode: 'tool', route: '/v1/messages', model: 'assistant-opus-4-20250514', client: 'anthropic-js' },
    { mode: 'direct', route: '/api/v1/messages', model: 'assistant-sonnet-4-20250514', client: 'anthropic-python' },
    { mode: 'respapi', route: '/respapi/:session_id/responses', model: 'rm-4', client: 'curl' },
  ] as const;
  const rows: UsageRecord[] = [];
  for (let i = 0; i < count; i++) {
    // More traffic recently: a third of the rows in the last day.
    const age = i % 3 === 0 ? rand() * DAY * 0.9 : rand() * 30 * DAY;
    const shape = shapes[Math.floor(rand() * shapes.length)];
    const fail = rand() < 0.08;
    const status = fail ? ([429, 500, 401] as const)[i % 3] : 200;
    const input = Math.round(200 + rand() * 4000);
    const output = Math.round(20 + rand() * 900);
    rows.push({
      requestId: `req_${(1000 + i).toString(16)}${Math.floor(rand() * 1e8).toString(16)}`,
      startedAt: Math.round(now - age),
      mode: shape.mode,
      route: shape.route,
      method: 'POST',
      streamed: rand() < 0.6,
      modelRequested: shape.model,
      modelServed: fail ? null : shape.model,
      client: shape.client,
      status,
      outcome: fail ? (status === 429 || status === 401 ? 'upstream_error' : 'error') : 'ok',
      errorType: fail
        ? status === 429
          ? 'rate_limit_error'
          : status === 401
            ? 'authentication_error'
            : 'api_error'
        : null,
      tokens: fail
        ? { input: null, output: null, cacheRead: null, cacheWrite: null }
        : {
            input,
            output,
            cacheRead: shape.mode === 'tool' ? Math.round(input * 0.6) : 0,
            cacheWrite: shape.mode === 'tool' ? Math.round(input * 0.1) : 0,
          },
      ttftMs: fail ? null : Math.round(300 + rand() * 1500),
      durationMs: Math.round(600 + rand() * 9000),
    });
  }
  // One unmatched path, as the ledger records it: the raw path.
  rows.push({
    ...rows[0],
    requestId: 'req_unmatched',
    route: '/no/such/route',
    mode: null,
    method: 'GET',
    status: 404,
    outcome: 'rejected',
    errorType: 'not_found_error',
    tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
    ttftMs: null,
    durationMs: 2,
    modelRequested: null,
    modelServed: null,
    startedAt: now - 60_000,
  });
  return rows.sort((a, b) => b.startedAt - a.startedAt);
}

export function sampleQuota(now: number): QuotaWindow[] {
  return [
    {
      source: 'direct',
      window: 'five_hour',
      utilization: 0.18,
      resetsAt: Math.round((now + 2.5 * 3_600_000) / 1000),
      status: 'allowed',
      observedAt: now - 120_000,
    },
    {
      source: 'direct',
      window: 'seven_day',
      utilization: 0.23,
      resetsAt: Math.round((now + 4 * DAY) / 1000),
      status: 'allowed',
      observedAt: now - 120_000,
    },
  ];
}

function percentile(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function keyOf(r: UsageRecord, by: SummaryBy): string {
  if (by === 'day') {
    const d = new Date(r.startedAt);
    return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
  }
  const v = by === 'model' ? (r.modelServed ?? r.modelRequested) : by === 'mode' ? r.mode : r.client;
  return v ?? 'unknown';
}

function summarise(rows: UsageRecord[]): Omit<SummaryRow, 'key'> {
  const tokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  let unreported = 0;
  for (const r of rows) {
    if (r.tokens.input === null && r.tokens.output === null) unreported++;
    tokens.input += r.tokens.input ?? 0;
    tokens.output += r.tokens.output ?? 0;
    tokens.cacheRead += r.tokens.cacheRead ?? 0;
    tokens.cacheWrite += r.tokens.cacheWrite ?? 0;
  }
  const ttft = rows.map((r) => r.ttftMs).filter((t): t is number => t !== null);
  return {
    requests: rows.length,
    errors: rows.filter((r) => r.outcome !== 'ok').length,
    tokens,
    unreportedTokens: unreported,
    ttftP50Ms: percentile(ttft, 50),
    ttftP95Ms: percentile(ttft, 95),
  };
}

export class FakeUsageReader implements UsageReader {
  constructor(
    public records: UsageRecord[],
    public quota: QuotaWindow[] = [],
    public bodies: Record<string, CapturedBodies> = {},
  ) {}

  summary(from: number, to: number, by: SummaryBy): UsageSummary {
    const rows = this.records.filter((r) => r.startedAt >= from && r.startedAt <= to);
    const groups = new Map<string, UsageRecord[]>();
    for (const r of rows) groups.set(keyOf(r, by), [...(groups.get(keyOf(r, by)) ?? []), r]);
    return {
      from,
      to,
      by,
      rows: [...groups.entries()]
        .map(([key, rs]) => ({ key, ...summarise(rs) }))
        .sort((a, b) => (by === 'day' ? a.key.localeCompare(b.key) : b.requests - a.requests)),
      total: summarise(rows),
    };
  }

  requests(q: RequestQuery) {
    const limit = q.limit ?? 50;
    const rows = this.records
      .filter(
        (r) =>
          (q.before === undefined || r.startedAt < q.before) &&
          (!q.mode || r.mode === q.mode) &&
          (!q.outcome || r.outcome === q.outcome),
      )
      .slice(0, limit);
    return { rows, nextBefore: rows.length === limit ? rows[rows.length - 1].startedAt : undefined };
  }

  request(id: string) {
    const record = this.records.find((r) => r.requestId === id);
    return record ? { record, bodies: this.bodies[id] } : undefined;
  }

  quotaWindows(): QuotaWindow[] {
    return this.quota;
  }
}
