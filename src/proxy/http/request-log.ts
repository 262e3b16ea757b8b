// One log line, one metrics record and one usage-ledger row per request, written when the response really ends
// (streams outlive `await next()`); the row itself is built by ledger-row.ts (docs/usage.md). Also owns the request's
// AbortSignal: it fires when the client disconnects before the response finished, so routes can kill CLI children and
// abort upstream requests.

import type { Logger } from '../logger.js';
import type { ProxyMetrics } from '../metrics.js';
import { inLedgerScope, isProbeRoute } from '../route-table.js';
import type { CaptureInput } from '../usage/capture.js';
import type { UsageSink } from '../usage/types.js';
import { capturedBodiesOf, ledgerRowOf } from './ledger-row.js';
import { RequestAbort } from './request-abort.js';
import type { ProxyState } from './state.js';
import type { ProxyMiddleware } from './types.js';

export interface InFlightRegistry {
  add(abort: RequestAbort): void;
  delete(abort: RequestAbort): void;
}

/** A ledger that keeps bodies for the inspector when CAPTURE_BODIES is on (it ignores them otherwise). */
type CapturingSink = UsageSink & { capture?(requestId: string, bodies: CaptureInput): void };

let isoSecond = Number.NaN;
let isoPrefix = '';

/**
 * `new Date(ms).toISOString()`, formatting each second once: requests that start in the same second share the
 * `YYYY-MM-DDTHH:mm:ss.` part and only the milliseconds are appended (a Date and its formatting cost more than
 * the rest of the record).
 */
export function isoTime(ms: number): string {
  const second = Math.floor(ms / 1000);
  if (second !== isoSecond || !Number.isInteger(ms)) {
    const full = new Date(ms).toISOString();
    // Only the plain four-digit-year form is cached; anything else (fractions, far years) is formatted each time.
    if (Number.isInteger(ms) && full.length === 24) {
      isoSecond = second;
      isoPrefix = full.slice(0, 20);
    }
    return full;
  }
  const rest = ms - second * 1000;
  return `${isoPrefix}${rest < 10 ? '00' : rest < 100 ? '0' : ''}${rest}Z`;
}

/**
 * The state object of a request from here on. `signal` is a getter on the prototype, so the AbortController is
 * still made only when something asks for the signal, yet every request's state has the same hidden class: an
 * accessor defined per request (Object.defineProperty with a new getter) turned each state into a dictionary, so
 * every read of ctx.state in the middleware and routes was a slow lookup.
 */
class RequestState {
  constructor(
    public abort: RequestAbort,
    public startedAt: number,
  ) {}

  get signal(): AbortSignal {
    return this.abort.signal;
  }
}

export function requestLog(
  logger: Logger,
  metrics: ProxyMetrics,
  inFlight: InFlightRegistry,
  now: () => number,
  usage?: CapturingSink,
): ProxyMiddleware {
  return (ctx, next) => {
    const startedAt = now();
    const abort = new RequestAbort();
    // What earlier middleware set (requestId: id, family, mode, route) carries over.
    ctx.state = Object.assign(new RequestState(abort, startedAt), ctx.state) as unknown as ProxyState;
    inFlight.add(abort);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight.delete(abort);
      // The answer was handed over whole, or the connection (or another transport, http/exchange.ts) went first.
      const clientGone = !ctx.res.writableFinished;
      if (clientGone) abort.abort(new Error('client disconnected'));
      const durationMs = now() - startedAt;
      const status = clientGone && !ctx.headerSent ? 499 : ctx.status;
      account(clientGone, durationMs, status);
    };
    const account = (clientGone: boolean, durationMs: number, status: number) => {
      const s = ctx.state;
      const record = {
        time: isoTime(startedAt),
        requestId: s.requestId,
        method: ctx.method,
        route: s.route,
        mode: s.mode,
        model: s.model,
        status,
        durationMs,
        ttftMs: s.firstTokenAt !== undefined ? s.firstTokenAt - startedAt : undefined,
        stream: s.stream === true,
        inputTokens: s.usage?.inputTokens,
        outputTokens: s.usage?.outputTokens,
        errorType: s.errorType ?? (clientGone ? 'client_disconnected' : undefined),
      };
      // A health check that reports "unhealthy" is an answer, not a failed request; monitors poll it often.
      const probe = isProbeRoute(s.route);
      metrics.finished(record, s.inFlightMode, !(probe && status === 503));
      if (usage && s.offLedger !== true && inLedgerScope(s.route, s.family)) {
        try {
          usage.record(
            ledgerRowOf(ctx, {
              startedAt,
              status,
              durationMs,
              clientGone,
              errorType: record.errorType,
              ttftMs: record.ttftMs,
            }),
          );
          usage.capture?.(s.requestId, capturedBodiesOf(ctx));
        } catch (err) {
          logger.warn({ err }, 'usage record failed');
        }
      }
      // A guard's refusal after the first from its source in a minute goes to debug (refusal-log.ts).
      const refusal = s.refusal;
      const level =
        probe || refusal?.level === 'debug'
          ? 'debug'
          : status >= 500
            ? 'error'
            : status >= 400 || clientGone
              ? 'warn'
              : 'info';
      // pino would drop a line below its level anyway; checking first saves building the object.
      if (!logger.isLevelEnabled(level)) return;
      logger[level](
        {
          requestId: s.requestId,
          method: ctx.method,
          path: ctx.path,
          route: s.route,
          mode: s.mode,
          model: s.model,
          status,
          durationMs,
          ttftMs: record.ttftMs,
          stream: record.stream,
          errorType: record.errorType,
          field: s.errorField,
          reason: s.errorReason,
          refusedSinceLastWarn: refusal?.refusedSinceLastWarn,
          clientGone,
          lane: s.billingLane,
          billingRefusal: s.billingRefusal,
        },
        'request',
      );
      // A billing refusal has its own stable line (the window's log and diagnose look for it; docs/usage.md).
      if (s.billingRefusal && logger.isLevelEnabled('warn')) {
        logger.warn(
          {
            requestId: s.requestId,
            mode: s.mode,
            route: s.route,
            refusal: s.billingRefusal,
            docs: 'docs/usage.md#lanes',
          },
          `billing refusal: ${s.billingRefusal}`,
        );
      }
    };
    // `on`, not `once`: finish() runs once anyway (done), and once() wraps each listener in a new closure.
    ctx.res.on('close', finish);
    ctx.res.on('finish', finish);
    return next();
  };
}
