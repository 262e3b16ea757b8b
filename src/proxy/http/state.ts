// What every middleware and route may read or set on ctx.state for one request.

import type { Family } from '../route-table.js';
import type { ErrorShape } from './error-shape.js';
import type { RefusalLogLevel } from './refusal-log.js';
import type { RequestAbort } from './request-abort.js';
import type { RouteMode } from '../route-table.js';
import type { BillingLane, BillingRefusal, Outcome } from '../usage/types.js';

/**
 * A transport that takes a streamed answer's events as they are (a Responses socket's frames, http/exchange.ts), in
 * place of the SSE text an HTTP answer is written as (http/sse.ts). The events are http/sse.ts's SseEvent.
 */
export interface EventRelay {
  relay(events: AsyncIterable<{ event?: string; data: unknown }>): void;
}

export interface ProxyState {
  requestId: string;
  family: Family;
  /** Set by the route; labels metrics and logs. */
  mode: RouteMode;
  /** The route pattern (not the raw path) for metrics labels. */
  route: string;
  /** The mode this request is counted in flight under (set when it reaches a route). */
  inFlightMode?: RouteMode;
  startedAt: number;
  /** Aborted when the client goes away or the server shuts down past its grace period. */
  signal: AbortSignal;
  abort: RequestAbort;
  /** The first content delta's time; written only by the chat's observer (chat/chat-observer.ts), as are
   * usage and modelServed. */
  firstTokenAt?: number;
  model?: string;
  stream?: boolean;
  /** Token counts as the upstream reported them (the usage ledger stores them; absent means not reported). */
  usage?: { inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; cacheWriteTokens?: number };
  /** The model the answer reports, when a route knows it (the ledger's model_served). */
  modelServed?: string;
  /** Which lane paid, from an upstream's own signal (usage/billing-lane.ts); written only by the chat's observer. */
  billingLane?: BillingLane;
  /** The lane was carried from the CLI process's last report, not reported for this request (docs/usage.md "Lanes"). */
  billingLaneCarried?: boolean;
  /** Why the request was made, when it was not for an answer: `compaction`, a conversation's summary
   * (docs/compaction.md); the ledger row's purpose. */
  purpose?: 'compaction';
  /** The provider's billing refusal this request met (set where the error is rendered, from ProxyError.refusal). */
  billingRefusal?: BillingRefusal;
  /** The usage so far is what the start of the answer reported: its output count was a placeholder, not a count. */
  usagePartial?: boolean;
  /** Set once an upstream (the provider, the CLI, the response API) answered, so a 4xx is the upstream's. */
  upstreamAnswered?: boolean;
  /** How the request ended, when a route knows better than request-log.ts's reading of status and errorType. */
  outcome?: Outcome;
  /** Set when a failure happened after headers were sent (reported in-stream). */
  errorType?: string;
  /** A route's own error shape (its wire format's, formats/format.ts), used by http/errors.ts instead of the
   * family's once the request reached that route. */
  errorShape?: ErrorShape;
  /** A refused request's field and reason (what its error body says), for its log line. */
  errorField?: string;
  errorReason?: string;
  /** Parsed JSON body (set by the body middleware). */
  body?: unknown;
  /** The body exactly as received, for byte-level forwarding. */
  rawBody?: Buffer;
  /** Refused before any work (a web page's request, a foreign Host): counted, logged, but no usage-ledger row. */
  offLedger?: boolean;
  /** A guard's refusal: the level of its log line, so a page's flood of them is one warn line a minute (refusal-log.ts). */
  refusal?: RefusalLogLevel;
  /** Set when the request came by another transport (http/exchange.ts): its streamed answer's events go there. */
  relay?: EventRelay;
  /** A WebSocket handshake the main listener's upgrade event passed in (responses/socket/upgrade.ts). */
  upgrade?: true;
  /** The connection's own responses, for a request that came on a Responses socket (responses/store.ts
   * ConnectionResponses: set by responses/socket/connection.ts, read by responses/chain-step.ts). */
  socketResponses?: object;
  /** The client presented the proxy access key as its API key; it must not be forwarded upstream. */
  accessKeyPresented?: boolean;
}
