// One log line and one metrics record per request, written when the response really ends (streams outlive
// `await next()`). Also owns the request's AbortSignal: it fires when the client disconnects before the
// response finished, so routes can kill CLI children and abort upstream requests.

import type { Logger } from '../logger.js';
import type { ProxyMetrics } from '../metrics.js';
import { RequestAbort } from './request-abort.js';
import type { ProxyMiddleware } from './types.js';

export interface InFlightRegistry {
  add(abort: RequestAbort): void;
  delete(abort: RequestAbort): void;
}

export function requestLog(logger: Logger, metrics: ProxyMetrics, inFlight: InFlightRegistry, now: () => number): ProxyMiddleware {
  return async (ctx, next) => {
    const startedAt = now();
    const abort = new RequestAbort();
    ctx.state.startedAt = startedAt;
    ctx.state.abort = abort;
    Object.defineProperty(ctx.state, 'signal', { get: () => abort.signal, enumerable: true, configurable: true });
    inFlight.add(abort);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight.delete(abort);
      const clientGone = !ctx.res.writableFinished;
      if (clientGone) abort.abort(new Error('client disconnected'));
      const s = ctx.state;
      const durationMs = now() - startedAt;
      const status = clientGone && !ctx.headerSent ? 499 : ctx.status;
      const record = {
        time: new Date(startedAt).toISOString(),
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
      const probe = s.route.startsWith('/health') || s.route === '/metrics';
      metrics.finished(record, s.inFlightMode, !(probe && status === 503));
      const level = probe ? 'debug' : status >= 500 ? 'error' : status >= 400 || clientGone ? 'warn' : 'info';
      logger[level](
        { requestId: s.requestId, method: ctx.method, path: ctx.path, route: s.route, mode: s.mode, model: s.model, status, durationMs, ttftMs: record.ttftMs, stream: record.stream, errorType: record.errorType, clientGone },
        'request',
      );
    };
    ctx.res.once('close', finish);
    ctx.res.once('finish', finish);
    await next();
  };
}
