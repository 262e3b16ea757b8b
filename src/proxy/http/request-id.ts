// Every request gets an id: the client's x-request-id when it is a sane token, else a new one. It is echoed
// in the response, carried on every log line, and used in native error bodies.

import { randomUUID } from 'node:crypto';
import { familyOf } from '../route-table.js';
import type { ProxyMiddleware } from './types.js';

const sane = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * 32 random hex digits: a random UUID without its dashes, cut out by position. randomUUID draws from a buffered
 * entropy pool, where a small randomBytes() call fills a new buffer each time.
 */
export function randomHex(): string {
  const u = randomUUID();
  return `${u.slice(0, 8)}${u.slice(9, 13)}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`;
}

/**
 * `req_` and 32 hex digits: the time in milliseconds (12 digits), then the last 20 digits of a random UUID (74
 * random bits). Ids made in order sort in order, as UUIDv7s do, so the usage ledger's index on them is written at
 * its end: with wholly random ids every insert landed on a random page of that index, and writes slowed as the
 * ledger grew (docs/usage.md "Request ids").
 */
export function newRequestId(now: number = Date.now()): string {
  const u = randomUUID();
  return `req_${now.toString(16).padStart(12, '0')}${u.slice(14, 18)}${u.slice(19, 23)}${u.slice(24)}`;
}

export function requestId(): ProxyMiddleware {
  return (ctx, next) => {
    const given = ctx.get('x-request-id');
    ctx.state.requestId = sane.test(given) ? given : newRequestId();
    ctx.state.family = familyOf(ctx.path);
    ctx.state.mode = 'none';
    ctx.state.route = 'unmatched';
    ctx.set('x-request-id', ctx.state.requestId);
    // On every answer, errors and streams included: no browser may read a JSON or SSE body as a script or
    // a page (docs/security.md "A web page in the user's browser").
    ctx.set('x-content-type-options', 'nosniff');
    // The native SDK reads `request-id` (its error objects and `requestID` carry it); direct mode replaces it
    // with the provider's own when the answer comes from upstream.
    if (ctx.state.family === 'native') ctx.set('request-id', ctx.state.requestId);
    return next();
  };
}
