// docs/interface.md "Limits": 60 requests per minute per client IP plus a burst of 10: a steady fixed window of a
// minute per client, and a burst window (its own minute, started when first drawn on) used only when the steady one is
// spent — the semantics rate-limiter-flexible's BurstyRateLimiter had here. Kept in a Map and checked synchronously,
// without the library's promises (consume, then two gets for the headers) on every request.
// Headers (the interface names none; docs/http.md "Rate limiting" records the choice):
//   X-RateLimit-Limit      requests allowed per minute including the burst (60 + 10 = 70 by default)
//   X-RateLimit-Remaining  requests left in the current windows
//   X-RateLimit-Reset      Unix time (seconds) when the steady window resets
//   Retry-After            on 429 only, seconds until a request will be accepted again
// Probes (health and metrics, route-table.ts) are never limited, so monitors cannot lock a user out.
// Every loopback address (127.0.0.0/8, ::1, and the IPv4-mapped forms) is one client: they are all this machine, and
// a local process that spread its requests over 127.0.0.2–127.0.0.9 had eight budgets (docs/security.md).
// A 429 says how to raise the limit; `onLimited` tells the window that clients are being limited.

import { ProxyError } from '../errors.js';
import { isProbePath } from '../route-table.js';
import type { ProxyMiddleware } from './types.js';

const windowMs = 60_000;
/** Expired windows are swept once this many clients are known (a loopback proxy sees one or two). */
const sweepAt = 10_000;

interface Window {
  used: number;
  resetAt: number;
}

/** Fixed windows per key; `used` counts every attempt, as rate-limiter-flexible's memory limiter did. */
class FixedWindows {
  private readonly windows = new Map<string, Window>();

  get(key: string, t: number): Window | undefined {
    const w = this.windows.get(key);
    if (w && t >= w.resetAt) {
      this.windows.delete(key);
      return undefined;
    }
    return w;
  }

  consume(key: string, t: number): Window {
    let w = this.get(key, t);
    if (!w) {
      if (this.windows.size >= sweepAt) this.sweep(t);
      w = { used: 0, resetAt: t + windowMs };
      this.windows.set(key, w);
    }
    w.used++;
    return w;
  }

  private sweep(t: number): void {
    for (const [k, w] of this.windows) if (t >= w.resetAt) this.windows.delete(k);
  }
}

/** The limiter's client: one for the whole loopback range, else the address. */
function clientKeyOf(address: string): string {
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  if (a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a)) return 'loopback';
  return a;
}

export function rateLimit(
  perMinute: number,
  burst: number,
  now: () => number = Date.now,
  onLimited?: (client: string) => void,
): ProxyMiddleware {
  const steady = new FixedWindows();
  const bursts = new FixedWindows();
  const burstPoints = Math.max(burst, 0);
  const limit = perMinute + burstPoints;
  return (ctx, next) => {
    if (isProbePath(ctx.path) || ctx.method === 'OPTIONS') {
      return next();
    }
    const key = clientKeyOf(ctx.ip || ctx.socket.remoteAddress || 'unknown');
    const t = now();
    const s = steady.consume(key, t);
    let limited = false;
    let retryMs = 0;
    if (s.used > perMinute) {
      // The steady window is spent: draw on the burst window, if there is one.
      const b = burstPoints > 0 ? bursts.consume(key, t) : undefined;
      if (!b || b.used > burstPoints) {
        limited = true;
        retryMs = s.resetAt - t;
      }
    }
    const b = burstPoints > 0 ? bursts.get(key, t) : undefined;
    const used = Math.min(s.used, perMinute) + Math.min(b?.used ?? 0, burstPoints);
    ctx.set('x-ratelimit-limit', String(limit));
    ctx.set('x-ratelimit-remaining', String(Math.max(0, limit - used)));
    ctx.set('x-ratelimit-reset', String(Math.ceil(s.resetAt / 1000)));
    if (limited) {
      const retryAfter = Math.max(1, Math.ceil(retryMs / 1000));
      onLimited?.(key);
      const who = key === 'loopback' ? 'for all clients on this computer together' : 'per client';
      throw new ProxyError(
        'rate_limit',
        `Rate limit exceeded: ${perMinute} requests per minute (+${burst} burst) ${who}. Retry in ${retryAfter} s. To raise the limit, set RATE_LIMIT_PER_MINUTE (and RATE_LIMIT_BURST), or "Rate limit" in the desktop window's Settings (docs/configuration.md).`,
        { retryAfter },
      );
    }
    return next();
  };
}
