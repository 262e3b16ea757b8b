// CORS is off by default: no Access-Control-* header is ever sent, so no web page can read an answer.
// When origins are configured, only those origins are echoed back (never "*"), with Vary: Origin, and
// preflight requests are answered here. A preflight from any other origin gets 403.

import { ProxyError } from '../errors.js';
import type { ProxyMiddleware } from './types.js';

const allowMethods = 'GET, POST, OPTIONS';
const defaultAllowHeaders = 'authorization, content-type, x-api-key, x-request-id, anthropic-version, anthropic-beta';
const exposeHeaders =
  'x-request-id, retry-after, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, x-proxy-ignored-params, x-proxy-session-id, x-proxy-models-source, x-proxy-models-error, warning';

export function cors(origins: string[]): ProxyMiddleware {
  const allowed = new Set(origins.map((o) => o.replace(/\/$/, '').toLowerCase()));
  return (ctx, next) => {
    const origin = ctx.get('origin');
    const isPreflight = ctx.method === 'OPTIONS' && ctx.get('access-control-request-method') !== '';
    if (!origin) return next();
    ctx.vary('Origin');
    const ok = allowed.has(origin.toLowerCase());
    if (isPreflight) {
      if (!ok)
        throw new ProxyError(
          'permission',
          allowed.size === 0
            ? 'CORS is off: browser requests are not allowed (set CORS_ORIGINS to allow an origin)'
            : `Origin ${origin} is not in CORS_ORIGINS`,
        );
      ctx.set('access-control-allow-origin', origin);
      ctx.set('access-control-allow-methods', allowMethods);
      ctx.set('access-control-allow-headers', ctx.get('access-control-request-headers') || defaultAllowHeaders);
      ctx.set('access-control-max-age', '600');
      ctx.status = 204;
      return;
    }
    if (ok) {
      ctx.set('access-control-allow-origin', origin);
      ctx.set('access-control-expose-headers', exposeHeaders);
    }
    return next();
  };
}
