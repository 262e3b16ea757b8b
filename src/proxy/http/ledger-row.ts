// One finished request's row of the usage ledger (docs/usage.md), and the bodies the ledger may keep beside it: the
// one place a UsageRecord is built, from what the request left on ctx.state (the chat's observer wrote the answer's
// facts there, chat/chat-observer.ts) and how it ended. Called by the request log (request-log.ts) when the response
// really ends, for a request in the ledger's scope. No I/O.

import { clientFamily } from '../usage/client-family.js';
import { outcomeOf } from '../usage/outcome-of.js';
import type { CaptureInput } from '../usage/capture.js';
import type { BillingLane, UsageRecord } from '../usage/types.js';
import type { ProxyState } from './state.js';
import type { ProxyContext } from './types.js';

/** How a request ended, as the request log saw it when its response closed. */
export interface RequestEnd {
  startedAt: number;
  status: number;
  durationMs: number;
  /** The client went away before the answer ended. */
  clientGone: boolean;
  /** The error's type: the state's, or `client_disconnected`. */
  errorType: string | undefined;
  ttftMs: number | undefined;
}

/**
 * The lane of a request, from what its upstream said (usage/billing-lane.ts): the observer's reading of the
 * provider's headers or the CLI's event; the response API for a response-API request it answered; for a billing
 * refusal without those, the lane the provider's own words name (third-party use is drawn from extra usage; a
 * CLI-only login is the plan's). Otherwise unknown.
 */
function billingLaneOf(s: ProxyState): BillingLane | null {
  if (s.billingLane) return s.billingLane;
  if (s.mode === 'respapi' && s.upstreamAnswered) return 'response_api';
  if (s.billingRefusal === 'extra_usage_off') return 'extra_usage';
  if (s.billingRefusal === 'cli_only_credential') return 'plan';
  return null;
}

/** The ledger's row of one finished request. */
export function ledgerRowOf(ctx: ProxyContext, end: RequestEnd): UsageRecord {
  const s = ctx.state;
  const { status, clientGone } = end;
  const routed = s.mode !== 'none';
  const partial = s.usagePartial === true;
  return {
    requestId: s.requestId,
    startedAt: end.startedAt,
    mode: routed ? (s.mode as Exclude<typeof s.mode, 'none'>) : null,
    route: routed ? s.route : ctx.path.slice(0, 200),
    method: ctx.method,
    streamed: s.stream === true,
    modelRequested: s.model ?? null,
    modelServed: s.modelServed ?? null,
    client: clientFamily(ctx.get('user-agent')),
    status,
    outcome: outcomeOf({
      clientGone,
      status,
      errorType: s.errorType,
      routed,
      upstreamAnswered:
        s.upstreamAnswered === true || s.billingRefusal !== undefined /* the provider said it, through the CLI too */,
      explicit: s.outcome,
    }),
    errorType: end.errorType ?? null,
    tokens: {
      input: s.usage?.inputTokens ?? null,
      output: partial ? null : (s.usage?.outputTokens ?? null),
      cacheRead: s.usage?.cacheReadTokens ?? null,
      cacheWrite: s.usage?.cacheWriteTokens ?? null,
    },
    tokensPartial: partial,
    billingLane: billingLaneOf(s),
    laneCarried: s.billingLaneCarried === true,
    purpose: s.purpose ?? null,
    refusal: s.billingRefusal ?? null,
    ttftMs: end.ttftMs ?? null,
    durationMs: end.durationMs,
  };
}

/** The answer's body when it is whole in memory (a stream is not buffered for capture). */
function wholeBody(body: unknown): unknown {
  return typeof body === 'string' ||
    Buffer.isBuffer(body) ||
    (typeof body === 'object' && body !== null && !('pipe' in body))
    ? body
    : undefined;
}

/** The bodies the ledger keeps beside the row for the inspector when CAPTURE_BODIES is on (usage/capture.ts). */
export function capturedBodiesOf(ctx: ProxyContext): CaptureInput {
  return { request: ctx.state.rawBody ?? ctx.state.body, response: wholeBody(ctx.body), headers: ctx.headers };
}
