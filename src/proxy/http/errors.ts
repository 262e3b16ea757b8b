// The one outermost error renderer (docs/principles.md "One error hierarchy"). A ProxyError is rendered in its route's
// error shape once a route with one is matched (ctx.state.errorShape: its format's), else in the shape of the request
// path's family (docs/interface.md "Errors"; the table of formats/error-shapes.ts, handed over by server.ts, since
// http/ sits below formats/); Koa/http errors from libraries (anything with an HTTP status) are mapped onto kinds;
// anything else is our own bug: logged with its stack, answered 500 without it. After headers are sent nothing
// can be rendered: the error is logged and the stream route has already written an in-stream error.

import { ProxyError, isProxyError, type ErrorKind } from '../errors.js';
import type { Logger } from '../logger.js';
import { redactSecrets } from '../redact.js';
import type { Family } from '../route-table.js';
import type { ErrorShape } from './error-shape.js';
import type { ProxyMiddleware } from './types.js';

function fromHttpError(err: {
  status?: number;
  expose?: boolean;
  message?: string;
  type?: string;
}): ProxyError | undefined {
  const status = err.status;
  if (typeof status !== 'number' || status < 400) return undefined;
  const map: Record<number, ErrorKind> = {
    400: 'invalid_request',
    401: 'authentication',
    403: 'permission',
    404: 'not_found',
    405: 'method_not_allowed',
    413: 'payload_too_large',
    415: 'unsupported_media_type',
    429: 'rate_limit',
  };
  const kind = map[status] ?? (status >= 500 ? 'internal' : 'invalid_request');
  const message =
    err.expose && err.message ? err.message : kind === 'internal' ? 'Internal server error' : `HTTP ${status}`;
  return new ProxyError(kind, message, { status });
}

export function errorRenderer(logger: Logger, familyShapes: Readonly<Record<Family, ErrorShape>>): ProxyMiddleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (caught) {
      let err: ProxyError;
      if (isProxyError(caught)) {
        err = caught;
      } else {
        err =
          fromHttpError(caught as object) ??
          new ProxyError(
            'internal',
            'Internal server error: the proxy hit an unexpected condition; see its log for details',
          );
        if (err.kind === 'internal') {
          logger.error({ requestId: ctx.state.requestId, err: caught }, 'unhandled error');
        }
      }
      if (!ctx.headerSent && !ctx.writable) {
        // The client went away before there was an answer: nobody to tell. The request log has already recorded it
        // (499 client_disconnected: its close handler is what aborted the request's work).
        logger.debug({ requestId: ctx.state.requestId, kind: err.kind }, 'client gone before the answer');
        return;
      }
      const shape = ctx.state.errorShape ?? familyShapes[ctx.state.family];
      ctx.state.errorType = shape.typeName(err);
      if (err.refusal) ctx.state.billingRefusal = err.refusal;
      if (err.ownerDetail !== undefined)
        logger.error({ requestId: ctx.state.requestId, detail: err.ownerDetail }, redactSecrets(err.message));
      if (err.status < 500) {
        // The request log's line says what was wrong, as the client's error body does (docs/http.md).
        ctx.state.errorField = err.field;
        ctx.state.errorReason = redactSecrets(err.issue ?? err.message);
      }
      if (ctx.headerSent) {
        logger.warn(
          { requestId: ctx.state.requestId, kind: err.kind, msg2: redactSecrets(err.message) },
          'error after headers were sent',
        );
        return;
      }
      ctx.status = err.status;
      for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      if (err.retryAfter !== undefined) ctx.set('retry-after', String(Math.max(0, Math.ceil(err.retryAfter))));
      // The official SDKs honour this header before their own status rules: an answer that only the user can fix
      // (no CLI, not logged in, a bad request) fails at once instead of after retries and back-off
      // (docs/http.md "Retries"). A provider's own x-should-retry, passed on in err.headers, is its word and stays.
      if (!err.retryable && !ctx.response.get('x-should-retry')) ctx.set('x-should-retry', 'false');
      ctx.type = 'application/json';
      const safe = new ProxyError(err.kind, redactSecrets(err.message), {
        field: err.field,
        issue: err.issue,
        status: err.status,
        code: err.code,
      });
      ctx.body = shape.body(safe, ctx.state.requestId);
    }
  };
}
