// PROXY_ACCESS_KEY means one thing everywhere (docs/security.md "The access key", docs/configuration.md): when it
// is set, every request must carry it, on loopback as on the network, as the API key a client library sends anyway
// (Authorization: Bearer or x-api-key) or in x-proxy-access-key. A multi-user machine sets it so that other local
// users cannot spend the owner's subscription or read their usage. Listening beyond loopback refuses to start
// without it (config.ts). Two answers stay open because they reveal nothing and do no work: the basic `GET /health`
// (load balancers and monitors probe it, SPEC.md §4 note 8) and `GET /` ("… is running", PEERS.md "First run").
// /health/detailed is not open: it shows the account's e-mail, the CLI's path under the user's home and the
// response-API session ids. CORS preflights are answered before this (cors.ts): a browser never sends a key on one.
// Routes read state.accessKeyPresented so that the key is never forwarded upstream.
//
// A tool-mode chat that may use the CLI's file tools (CLI_ALLOWED_TOOLS offers a tool that reads or writes files, or a
// shell) is refused with a 403 unless it carries the key, even when chats are otherwise keyless: such a chat runs
// tools on the owner's files, and its text may come from anyone who can reach the port (docs/security.md "The CLI's
// own tools"). Without a key configured at all, such chats are refused until one is.

import { timingSafeEqual } from 'node:crypto';
import { ProxyError } from '../errors.js';
import { isOpenRoute, routeTable } from '../route-table.js';
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

/** The tool-mode routes that start a CLI (not token counting), lower case: the router matches without case. */
const toolChatPaths = new Set(
  routeTable.filter((r) => r.mode === 'tool' && r.method === 'POST' && !r.path.endsWith('/count_tokens')).map((r) => r.path.toLowerCase()),
);

function isToolChat(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return toolChatPaths.has(p.toLowerCase());
}

export interface AccessKeyOptions {
  /** CLI_ALLOWED_TOOLS offers tools that touch the owner's files: tool-mode chats need the key. */
  fileToolsNeedKey?: boolean;
}

export function accessKey(key: string | undefined, options: AccessKeyOptions = {}): ProxyMiddleware {
  return (ctx, next) => {
    const presented = key ? presentedKeys(ctx.headers).some((k) => same(k, key)) : false;
    if (key) {
      ctx.state.accessKeyPresented = presented;
      if (!presented && !isOpenRoute(ctx.method, ctx.path)) {
        throw new ProxyError('authentication', 'This proxy requires its access key (PROXY_ACCESS_KEY): send it as your API key (Authorization: Bearer or x-api-key)');
      }
    }
    if (options.fileToolsNeedKey && !presented && isToolChat(ctx.method, ctx.path)) {
      throw new ProxyError(
        'permission',
        key
          ? "This proxy lets the assistant CLI use tools on the owner's files (CLI_ALLOWED_TOOLS), so a tool-mode chat must carry the access key: send it as your API key (Authorization: Bearer or x-api-key). See docs/security.md."
          : "This proxy lets the assistant CLI use tools on the owner's files (CLI_ALLOWED_TOOLS), so tool-mode chats need an access key: set PROXY_ACCESS_KEY and send it as your API key, or remove the file tools from CLI_ALLOWED_TOOLS. See docs/security.md.",
      );
    }
    return next();
  };
}
