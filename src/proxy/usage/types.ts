// The usage ledger's shapes (docs/usage.md). One file of types shared by the three sides that meet here: the
// request pipeline that produces a record when a request ends, the ledger that stores and queries records, and
// the window and tray that show them (through ControlApi, which re-exports these types). Types only.

import type { ModeName } from '../../shared/modes.js';

/**
 * How a request ended. `ok`: answered in full. `rejected`: refused by the proxy before any upstream work (a body
 * that does not parse, a failed validation, the rate limit, a refused key, an unknown model). `upstream_error`:
 * the provider, the CLI or the response API failed, before or after the answer started. `client_gone`: the client
 * disconnected before the answer ended. `timeout`: one of the proxy's deadlines ended it. `error`: our own bug.
 */
export type Outcome = 'ok' | 'rejected' | 'upstream_error' | 'client_gone' | 'timeout' | 'error';

/**
 * Which lane paid (docs/usage.md "Lanes"): the subscription's `plan`; `extra_usage` when the provider said overage
 * was in use; `api_key` when the client's own provider key carried a direct-mode request; `response_api` for the
 * response API. null when no signal said (never guessed).
 */
export type BillingLane = 'plan' | 'extra_usage' | 'api_key' | 'response_api';
export const billingLanes: readonly BillingLane[] = ['plan', 'extra_usage', 'api_key', 'response_api'];

/** The provider's two billing refusals: third-party use while extra usage is off; a CLI-only login used elsewhere. */
export type BillingRefusal = 'extra_usage_off' | 'cli_only_credential';

/** Token counts exactly as the provider or the CLI reported them; null when not reported (never estimated). */
interface TokenCounts {
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
}

/** One row of the ledger: one request for a chat, a model list or a token count, whatever its end. */
export interface UsageRecord {
  /** The id in the response's request-id header. */
  requestId: string;
  /** Start time, ms since the epoch. */
  startedAt: number;
  /** null for a path that matched no mode's route (an unknown path is still traffic the proxy carried). */
  mode: ModeName | null;
  /** The route as registered (`/v1/messages`, `/respapi/:session/responses`), or the raw path when none matched. */
  route: string;
  method: string;
  streamed: boolean;
  modelRequested: string | null;
  /** The model the answer reports (the provider's or the CLI's), in the neutral naming users see. */
  modelServed: string | null;
  /** The client's family from its user-agent (`openai-js`, `anthropic-python`, `curl`, ...), or null. */
  client: string | null;
  status: number;
  outcome: Outcome;
  /** The error type in the route family's wire shape (docs/interface.md "Errors"), null on success. */
  errorType: string | null;
  tokens: TokenCounts;
  /**
   * True when the answer ended before its final usage: output_tokens is then null (the provider's first figure is
   * a placeholder, not a count) and input and cache counts are those the start of the answer reported.
   */
  tokensPartial?: boolean;
  /** Which lane paid; null when no upstream signal said. */
  billingLane?: BillingLane | null;
  /**
   * True when the lane was carried, not reported: tool mode's CLI printed no new rate_limit_event for this request
   * (it prints one only when the figures change), so the lane is the one its process last reported (docs/usage.md
   * "Lanes").
   */
  laneCarried?: boolean;
  /** Why the request was made when it was not for an answer: `compaction`, a conversation's summary
   * (docs/compaction.md); null for an answer. */
  purpose?: 'compaction' | null;
  /** The provider's billing refusal this request met, if any. (The three fields above are optional for records
   * written by older code; a record read back from the ledger always has them.) */
  refusal?: BillingRefusal | null;
  /** Time to the first content delta, ms; null when none came (or the route does not stream content). */
  ttftMs: number | null;
  durationMs: number;
}

/** Where a quota window was observed. */
export type QuotaSource = 'direct' | 'cli' | 'respapi';

/** The latest observation of one subscription quota window. */
export interface QuotaWindow {
  source: QuotaSource;
  /** `five_hour`, `seven_day`, or another window the provider reports. */
  window: string;
  /** A fraction: 0.18 means 18 % used; null when the source reported the window without a figure. */
  utilization: number | null;
  /** Unix seconds; null when not reported. */
  resetsAt: number | null;
  /** `allowed`, `allowed_warning`, `rejected`, or what the source said; null when not reported. */
  status: string | null;
  /** ms since the epoch. */
  observedAt: number;
}

/** The overage (extra usage) state a source last reported (docs/usage.md "Endpoints": GET /usage/limits). */
export interface OverageState {
  source: QuotaSource;
  /** `allowed`, `allowed_warning`, `rejected` (off or exhausted), or what the source said; null when not said. */
  status: string | null;
  /** Whether the last answer was billed to extra usage; null when not said. */
  inUse: boolean | null;
  /** Why extra usage is off (`out_of_credits`, `org_level_disabled`...), when said. */
  disabledReason: string | null;
  /** ms since the epoch. */
  observedAt: number;
}

/** How much each client family used of a time span (the current 5-hour window): requests and tokens as reported. */
export interface ClientShare {
  client: string;
  requests: number;
  /** Input, output and cache tokens together, as reported (unreported counts add nothing). */
  tokens: number;
  /** This client's share of the span's tokens (0-1); of its requests when no tokens were reported at all. */
  share: number;
  /** The share of this client's input read from the provider's prompt cache (0-1): cache reads over input, cache
   * writes and cache reads together; null when it reported no input. The one figure that tells a cheap client from a
   * dear one (docs/usage.md "Reads from the cache"). */
  cacheReadShare: number | null;
}

/** Requests billed to extra usage since a time. */
export interface ExtraUsageUse {
  since: number;
  requests: number;
  tokens: number;
  /** ms since the epoch of the first such request in the span, or null. */
  firstAt: number | null;
}

export type SummaryBy = 'day' | 'model' | 'mode' | 'client' | 'lane';

export interface SummaryRow {
  /** The day (YYYY-MM-DD, local time of the proxy), the model, the mode, the client or the lane; `unknown` for null. */
  key: string;
  requests: number;
  errors: number;
  tokens: { input: number; output: number; cacheRead: number; cacheWrite: number };
  /** Requests whose token counts were not reported at all (they count in `requests`, not in `tokens`). */
  unreportedTokens: number;
  ttftP50Ms: number | null;
  ttftP95Ms: number | null;
}

export interface UsageSummary {
  from: number;
  to: number;
  by: SummaryBy;
  rows: SummaryRow[];
  total: Omit<SummaryRow, 'key'>;
}

export interface RequestQuery {
  limit?: number;
  /** Rows that started strictly before this time (ms), for paging back. */
  before?: number;
  mode?: ModeName;
  outcome?: Outcome;
  /** Only rows of this lane; `unknown` for rows without one. */
  lane?: BillingLane | 'unknown';
}

export interface RequestPage {
  rows: UsageRecord[];
  /** Pass as `before` to get the next page; absent on the last page. */
  nextBefore?: number;
}

/** Bodies kept for the inspector when capture is on (CAPTURE_BODIES), redacted like the logs and size-capped. */
export interface CapturedBodies {
  request: string | null;
  response: string | null;
  /** Request headers, redacted. */
  headers: Record<string, string>;
  truncated: boolean;
}

/**
 * What the request pipeline tells the ledger. The pipeline hands over raw observations; parsing quota headers and
 * CLI events into QuotaWindow rows is the ledger's job (src/proxy/usage/), so the pipeline stays unaware of it.
 * Every method must return at once and never throw: the ledger batches its writes off the request path.
 */
export interface UsageSink {
  /** Once per request in ledger scope (chat, model list, token count), when its answer has ended, whatever the end. */
  record(row: UsageRecord): void;
  /** The response headers of an upstream answer (direct mode: the provider; respapi: the response API). */
  upstreamHeaders(source: QuotaSource, headers: Record<string, string | string[] | undefined>): void;
  /** The `rate_limit_info` object of a CLI `rate_limit_event` line, as printed (not yet validated). The lane of the
   * request it came with is read from it separately (usage/billing-lane.ts). */
  cliRateLimit(info: unknown): void;
}

/**
 * What one request's upstream reports about who pays, handed to that request's observer as it arrives
 * (chat/chat-observer.ts): the provider's answer headers in direct mode, the CLI's rate_limit_event in tool mode.
 */
export interface BillingFacts {
  /** The headers of a provider answer, and whether the client's own key or a subscription login carried it. */
  providerAnswer(headers: Record<string, string | string[] | undefined>, credential: 'api-key' | 'oauth'): void;
  /** The `rate_limit_info` of a CLI `rate_limit_event` line, as printed. */
  cliRateLimit(info: unknown): void;
  /** The CLI printed no such line for this request: the lane its process last reported, carried forward. */
  cliLaneCarried(lane: BillingLane): void;
}
