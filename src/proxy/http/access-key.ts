// PROXY_ACCESS_KEY means one thing everywhere (docs/security.md "The access key", docs/configuration.md): when it
// is set, every request must carry it, on loopback as on the network, as the API key a client library sends anyway
// (Authorization: Bearer or x-api-key) or in x-proxy-access-key. A multi-user machine sets it so that other local
// users cannot spend the owner's subscription or read their usage. Listening beyond loopback refuses to start
// without it (config.ts). Two answers stay open because they reveal nothing and do no work: the basic `GET /health`
// (load balancers and monitors probe it, SPEC.md §4 note 8) and `GET /` ("… is running", PEERS.md "First run").
// /health/detailed is not open: it shows the account's e-mail, the CLI's path under the user's home and the
// response-API session ids. CORS preflights are answered before this (cors.ts): a browser never sends a key on one.
// Routes read state.accessKeyPresented so that the key is never forwarded upstream.

import { timingSafeEqual } from 'node:crypto';
import { ProxyError } from '../errors.js';
import { isOpenRoute } from '../route-table.js';
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

export function accessKey(key: string | undefined): ProxyMiddleware {
  return (ctx, next) => {
    if (key) {
      const presented = presentedKeys(ctx.headers).some((k) => same(k, key));
      ctx.state.accessKeyPresented = presented;
      if (!presented && !isOpenRoute(ctx.method, ctx.path)) {
        throw new ProxyError('authentication', 'This proxy requires its access key (PROXY_ACCESS_KEY): send it as your API key (Authorization: Bearer or x-api-key)');
      }
    }
    return next();
  };
}
