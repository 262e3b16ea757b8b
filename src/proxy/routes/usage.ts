// GET /usage/requests, /usage/requests/:id, /usage/summary, /usage/limits and /usage/export.csv: the usage
// ledger over HTTP (docs/usage.md "Endpoints"). Same access rules as /health/detailed: open on loopback, the
// access key beyond it (http/access-key.ts guards every path but /health). Query parameters pass a narrow zod
// schema; a bad one is a 400 in the general shape (docs/interface.md "General errors") naming the parameter. These
// routes are the proxy's own, not traffic it carries, so they are never recorded in the ledger themselves.

import { Readable } from 'node:stream';
import { z } from 'zod';
import { modeNames } from '../../shared/modes.js';
import { invalidField, ProxyError } from '../errors.js';
import type { ProxyContext } from '../http/types.js';
import type { Services } from '../services.js';
import type { UsageLedger } from '../usage/ledger.js';
import { MAX_PAGE } from '../usage/queries.js';
import {
  billingLanes,
  type CapturedBodies,
  type OverageState,
  type QuotaWindow,
  type UsageRecord,
} from '../usage/types.js';
import { currentSpan, paceOf, windowSeconds } from '../../shared/pace.js';
import { cacheReadShare } from '../../shared/cache-share.js';
import type { QuotaNames } from '../profile.js';
import { addRoute, type ProxyRouter } from '../http/add-route.js';

export type UsageQueries = Pick<
  UsageLedger,
  'requests' | 'request' | 'summary' | 'quotaWindows' | 'exportCsv' | 'overageStates' | 'extraUsage' | 'clientShares'
>;

const DAY_MS = 86_400_000;
const outcomes = ['ok', 'rejected', 'upstream_error', 'client_gone', 'timeout', 'error'] as const;

/** A time: ms since the epoch, or an ISO 8601 date or date-time. */
const time = z.string().transform((s, ctx) => {
  const n = /^\d{1,15}$/.test(s)
    ? Number(s)
    : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s)
      ? Date.parse(s)
      : Number.NaN;
  if (!Number.isFinite(n)) {
    ctx.addIssue({ code: 'custom', message: 'must be ms since the epoch or an ISO 8601 date' });
    return z.NEVER;
  }
  return n;
});
const int = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min, `must be at least ${min}`).max(max, `must be at most ${max}`));

const lanes = [...billingLanes, 'unknown'] as const;
const requestsQuery = z.strictObject({
  limit: int(1, MAX_PAGE).optional(),
  before: time.optional(),
  mode: z.enum(modeNames).optional(),
  outcome: z.enum(outcomes).optional(),
  lane: z.enum(lanes).optional(),
});
const rangeQuery = z.strictObject({
  from: time.optional(),
  to: time.optional(),
  by: z.enum(['day', 'model', 'mode', 'client', 'lane']).optional(),
});
const exportQuery = z.strictObject({ from: time.optional(), to: time.optional() });

function parseQuery<T extends z.ZodType>(schema: T, ctx: ProxyContext): z.output<T> {
  const raw: Record<string, string> = {};
  for (const [k, v] of Object.entries(ctx.query)) {
    if (Array.isArray(v)) throw invalidField(k, 'given more than once', `Invalid query: ${k} is given more than once`);
    if (v !== undefined) raw[k] = v;
  }
  const r = schema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = issue.code === 'unrecognized_keys' ? issue.keys[0] : String(issue.path[0] ?? 'query');
  const what =
    issue.code === 'unrecognized_keys'
      ? 'is not a known parameter'
      : issue.code === 'invalid_value'
        ? `must be one of ${issue.values.join(', ')}`
        : issue.message;
  throw invalidField(field, what, `Invalid query: ${field} ${what}`);
}

function range(q: { from?: number; to?: number }, now: number, defaultSpan: number): [number, number] {
  const to = q.to ?? now;
  const from = q.from ?? Math.max(0, to - defaultSpan);
  if (from > to) throw invalidField('from', 'must not be after to', 'Invalid query: from must not be after to');
  return [from, to];
}

/** The HTTP shape of one row: snake_case like the CSV columns; times in ms since the epoch. */
function recordToWire(r: UsageRecord, bodies?: CapturedBodies) {
  return {
    request_id: r.requestId,
    started_at: r.startedAt,
    mode: r.mode,
    method: r.method,
    route: r.route,
    streamed: r.streamed,
    model_requested: r.modelRequested,
    model_served: r.modelServed,
    client: r.client,
    status: r.status,
    outcome: r.outcome,
    error_type: r.errorType,
    input_tokens: r.tokens.input,
    output_tokens: r.tokens.output,
    cache_read_tokens: r.tokens.cacheRead,
    cache_write_tokens: r.tokens.cacheWrite,
    ttft_ms: r.ttftMs,
    duration_ms: r.durationMs,
    billing_lane: r.billingLane ?? null,
    refusal: r.refusal ?? null,
    tokens_partial: r.tokensPartial === true,
    lane_carried: r.laneCarried === true,
    purpose: r.purpose ?? null,
    ...(bodies ? { captured: bodies } : {}),
  };
}

/** The HTTP shape of a quota window: both times in Unix seconds, as the provider reports resets. */
function windowToWire(w: QuotaWindow) {
  return {
    source: w.source,
    window: w.window,
    utilization: w.utilization,
    resets_at: w.resetsAt,
    status: w.status,
    observed_at: Math.floor(w.observedAt / 1000),
  };
}

/** A window with its length and pace projection (src/shared/pace.ts); times in Unix seconds. */
function windowWithPaceToWire(w: QuotaWindow, names: QuotaNames) {
  const length = windowSeconds(w.window, names);
  const pace = paceOf(w, length);
  return {
    ...windowToWire(w),
    length_seconds: length,
    pace: pace
      ? {
          expected_at_reset: pace.expectedAtReset,
          limit_at: pace.limitAt,
          per_hour: pace.perHour,
          reaches_limit_before_reset: pace.limitAt !== null,
        }
      : null,
  };
}

function overageToWire(o: OverageState) {
  return {
    source: o.source,
    status: o.status,
    in_use: o.inUse,
    disabled_reason: o.disabledReason,
    observed_at: Math.floor(o.observedAt / 1000),
  };
}

const FIVE_HOURS_S = 5 * 3600;

export function registerUsage(router: ProxyRouter, services: Services, ledger: UsageQueries): void {
  const now = () => services.deps.now();
  addRoute(router, services, {
    method: 'GET',
    path: '/usage/requests',
    handler: async (ctx) => {
      const q = parseQuery(requestsQuery, ctx);
      const page = ledger.requests({
        limit: q.limit ?? 50,
        before: q.before,
        mode: q.mode,
        outcome: q.outcome,
        lane: q.lane,
      });
      ctx.body = {
        requests: page.rows.map((r) => recordToWire(r)),
        ...(page.nextBefore !== undefined ? { next_before: page.nextBefore } : {}),
      };
    },
  });
  addRoute(router, services, {
    method: 'GET',
    path: '/usage/requests/:id',
    handler: async (ctx) => {
      parseQuery(z.strictObject({}), ctx);
      const id = String(ctx.params.id ?? '');
      const found = ledger.request(id);
      if (!found)
        throw new ProxyError('not_found', `No request with id ${JSON.stringify(id.slice(0, 128))} in the usage ledger`);
      ctx.body = recordToWire(found.record, found.bodies);
    },
  });
  addRoute(router, services, {
    method: 'GET',
    path: '/usage/summary',
    handler: async (ctx) => {
      const q = parseQuery(rangeQuery, ctx);
      const [from, to] = range(q, now(), 7 * DAY_MS);
      const s = ledger.summary(from, to, q.by ?? 'day');
      const row = (r: Omit<(typeof s.rows)[number], 'key'>) => ({
        requests: r.requests,
        errors: r.errors,
        tokens: {
          input: r.tokens.input,
          output: r.tokens.output,
          cache_read: r.tokens.cacheRead,
          cache_write: r.tokens.cacheWrite,
        },
        unreported_tokens: r.unreportedTokens,
        cache_read_share: cacheReadShare(r.tokens),
        ttft_p50_ms: r.ttftP50Ms,
        ttft_p95_ms: r.ttftP95Ms,
      });
      // Who used the current 5-hour window (src/shared/pace.ts currentSpan): its start from the latest reset reported,
      // else the last five hours. The provider reports one utilization for the window; the split is by tokens.
      const span = currentSpan(ledger.quotaWindows(), 'five_hour', FIVE_HOURS_S, now());
      const five_hour_clients = {
        from: span.from,
        to: span.to,
        window_known: span.source !== null,
        clients: ledger
          .clientShares(span.from, span.to)
          .map(({ cacheReadShare: share, ...c }) => ({ ...c, cache_read_share: share })),
      };
      ctx.body = {
        from: s.from,
        to: s.to,
        by: s.by,
        rows: s.rows.map((r) => ({ key: r.key, ...row(r) })),
        total: row(s.total),
        five_hour_clients,
      };
    },
  });
  addRoute(router, services, {
    method: 'GET',
    path: '/usage/limits',
    handler: async (ctx) => {
      parseQuery(z.strictObject({}), ctx);
      const windows = ledger.quotaWindows();
      const names = services.profile.quota;
      const span = currentSpan(windows, 'five_hour', FIVE_HOURS_S, now());
      const extra = ledger.extraUsage(span.from);
      ctx.body = {
        windows: windows.map((w) => windowWithPaceToWire(w, names)),
        overage: ledger.overageStates().map(overageToWire),
        // Requests this proxy carried that the provider billed to extra usage, in the current 5-hour window.
        extra_usage: { since: extra.since, requests: extra.requests, tokens: extra.tokens, first_at: extra.firstAt },
      };
    },
  });
  addRoute(router, services, {
    method: 'GET',
    path: '/usage/export.csv',
    handler: async (ctx) => {
      const q = parseQuery(exportQuery, ctx);
      const [from, to] = range(q, now(), Number.POSITIVE_INFINITY); // everything up to now unless narrowed
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      ctx.type = 'text/csv; charset=utf-8';
      ctx.set('content-disposition', `attachment; filename="assistant-proxy-usage-${day(from)}-to-${day(to)}.csv"`);
      ctx.body = Readable.from(ledger.exportCsv(from, to));
    },
  });
}
