// DNS-rebinding guard (PEERS.md "Local-server safety"). While the proxy listens on loopback, a request whose
// Host header is not a loopback name or a configured name is refused with 403: a web page that rebinds its own
// domain to 127.0.0.1 still sends its own domain as Host. Beyond loopback the access key protects instead.

import { ProxyError } from '../errors.js';
import type { ProxyMiddleware } from './types.js';

const loopbackNames = ['localhost', '127.0.0.1', '::1'];

export function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']') > 0 ? h.indexOf(']') : undefined);
  const colon = h.lastIndexOf(':');
  return colon > 0 && h.indexOf(':') === colon ? h.slice(0, colon) : h;
}

export function hostGuard(allowedHosts: string[]): ProxyMiddleware {
  const allowed = new Set([...loopbackNames, ...allowedHosts.map((h) => h.toLowerCase())]);
  return async (ctx, next) => {
    const name = hostnameOf(ctx.get('host'));
    const ok = allowed.has(name) || /^127(\.\d{1,3}){3}$/.test(name) || name.endsWith('.localhost');
    if (!ok) {
      throw new ProxyError('permission', `Host "${name || '(none)'}" is not allowed. The proxy answers only localhost, 127.0.0.1 and [::1] (add names with ALLOWED_HOSTS).`);
    }
    await next();
  };
}
