// A whole answer written the moment it is complete, rather than after the middleware chain unwinds and Koa's own
// respond step runs: on the answer's path to the client those are a dozen async returns and Koa's checks, which
// `npm run bench`'s latency trace found between the provider's last byte and the client's (docs/benchmarks.md "The
// chunked answer"). Nothing after `await next()` in the chain writes to a response (docs/http.md), so nothing is
// lost by writing first; ctx.body still holds the answer for the request log and the body inspector.

import { setHeader } from './set-header.js';
import type { ProxyContext } from './types.js';

export function sendNow(ctx: ProxyContext, body: Buffer): void {
  // Koa's view of the answer: its status, Content-Length, and a content type when none was set.
  ctx.body = body;
  if (!ctx.writable) return; // the client is gone: Koa would not write either
  ctx.respond = false;
  ctx.res.statusCode = ctx.status;
  ctx.res.end(body);
}

/** A JSON answer, serialised and typed as Koa would (no indentation, `application/json; charset=utf-8`), written now. */
export function sendJson(ctx: ProxyContext, value: unknown): void {
  setHeader(ctx, 'content-type', 'application/json; charset=utf-8');
  sendNow(ctx, Buffer.from(JSON.stringify(value), 'utf8'));
}
