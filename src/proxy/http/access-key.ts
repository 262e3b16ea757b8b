// When the proxy listens beyond loopback, every request must carry the access key: as the API key a client
// library sends anyway (Authorization: Bearer or x-api-key), or in x-proxy-access-key. The basic /health stays
// open so load balancers can probe it (SPEC.md §4 note 8); /health/detailed does not, because it shows the
// account's e-mail, the CLI's path under the user's home and the response-API session ids. On loopback the key
// is optional, but when one is set and a client presents it, routes know not to forward it upstream.

import { timingSafeEqual } from 'node:crypto';
import { ProxyError } from '../errors.js';
import type { ProxyMiddleware } from './types.js';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function presentedKeys(headers: Record<string, string | string[] | undefined>): string[] {
  const out: string[] = [];
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^bearer\s+/i.test(auth)) out.push(auth.replace(/^bearer\s+/i, '').trim());
  for (const h of ['x-api-key', 'x-proxy-access-key']) {
    const v = headers[h];
    if (typeof v === 'string' && v) out.push(v.trim());
  }
  return out;
}

export function accessKey(key: string | undefined, required: boolean): ProxyMiddleware {
  return async (ctx, next) => {
    if (key) {
      const presented = presentedKeys(ctx.headers).some((k) => same(k, key));
      ctx.state.accessKeyPresented = presented;
      const open = ctx.path === '/health';
      if (required && !presented && !open) {
        throw new ProxyError('authentication', 'This proxy requires its access key: send it as your API key (Authorization: Bearer or x-api-key)');
      }
    }
    await next();
  };
}
