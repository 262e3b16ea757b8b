// SPEC.md §8: 60 requests per minute per client IP plus a burst of 10, with rate-limiter-flexible's
// BurstyRateLimiter (a steady limiter, and a burst limiter drawn on only when the steady one is spent).
// Headers (SPEC.md leaves names open; docs/http.md records the choice):
//   X-RateLimit-Limit      requests allowed per minute including the burst (60 + 10 = 70 by default)
//   X-RateLimit-Remaining  requests left in the current windows
//   X-RateLimit-Reset      Unix time (seconds) when the steady window resets
//   Retry-After            on 429 only, seconds until a request will be accepted again
// Health and metrics are never limited, so monitors cannot lock a user out.

import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { ProxyError } from '../errors.js';
import type { ProxyMiddleware } from './types.js';

const unlimited = new Set(['/health', '/health/detailed', '/metrics']);

export function rateLimit(perMinute: number, burst: number, now: () => number = Date.now): ProxyMiddleware {
  const steady = new RateLimiterMemory({ points: perMinute, duration: 60, keyPrefix: 'steady' });
  const burstLimiter = new RateLimiterMemory({ points: Math.max(burst, 0), duration: 60, keyPrefix: 'burst' });
  const limiter = burst > 0 ? new BurstyRateLimiter(steady, burstLimiter) : steady;
  const limit = perMinute + Math.max(burst, 0);
  return async (ctx, next) => {
    if (unlimited.has(ctx.path) || ctx.method === 'OPTIONS') {
      await next();
      return;
    }
    const key = ctx.ip || ctx.socket.remoteAddress || 'unknown';
    let res: RateLimiterRes;
    let limited = false;
    try {
      res = await limiter.consume(key);
    } catch (rejected) {
      if (!(rejected instanceof RateLimiterRes)) throw rejected;
      res = rejected;
      limited = true;
    }
    const steadyRes = await steady.get(key);
    const burstRes = burst > 0 ? await burstLimiter.get(key) : null;
    const used = (steadyRes?.consumedPoints ?? 0) + (burstRes?.consumedPoints ?? 0);
    const remaining = Math.max(0, limit - Math.min(used, limit));
    const resetMs = steadyRes?.msBeforeNext ?? res.msBeforeNext;
    ctx.set('x-ratelimit-limit', String(limit));
    ctx.set('x-ratelimit-remaining', String(remaining));
    ctx.set('x-ratelimit-reset', String(Math.ceil((now() + resetMs) / 1000)));
    if (limited) {
      const retryAfter = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
      throw new ProxyError('rate_limit', `Rate limit exceeded: ${perMinute} requests per minute (+${burst} burst) per client. Retry in ${retryAfter} s.`, { retryAfter });
    }
    await next();
  };
}
