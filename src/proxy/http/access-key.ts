// Who may do what without which key (docs/security.md "The owner's key and the access key"):
// - the owner's key (auth/owner-key.ts, generated at first start, owner-only in the data directory; PROXY_ACCESS_KEY
//   when set) opens everything; clients send it as the API key a client library sends anyway (Authorization: Bearer
//   or x-api-key) or in x-proxy-access-key, compared in constant time, and the headers that carried it are removed
//   so that no route forwards it upstream;
// - with PROXY_ACCESS_KEY set or REQUIRE_ACCESS_KEY on, every request needs it, on loopback as on the network
//   (listening beyond loopback refuses to start without PROXY_ACCESS_KEY, config.ts);
// - otherwise data about the owner (/usage/*: history, totals, limits, the CSV export, captured bodies) needs it,
//   and so does a tool-mode chat when CLI_ALLOWED_TOOLS offers tools on the owner's files (a 403 naming the remedy);
//   other chats stay keyless (docs/interface.md "Authentication"), and /health/detailed answers without the e-mail
//   and paths (routes/health.ts reads state.accessKeyPresented).
// Two answers stay open because they reveal nothing and do no work: the basic `GET /health` (load balancers and
// monitors probe it, docs/interface.md "Health record") and `GET /` ("… is running", docs/lessons.md "First run").
// CORS preflights are answered before this (cors.ts): a browser never sends a key on one.

import { timingSafeEqual } from 'node:crypto';
import { ProxyError } from '../errors.js';
import { isOpenRoute, routeTable } from '../route-table.js';
import type { ProxyMiddleware } from './types.js';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function presentedKeys(headers: Record<string, string | string[] | undefined>): string[] {
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
  routeTable
    .filter((r) => r.mode === 'tool' && r.method === 'POST' && !r.path.endsWith('/count_tokens'))
    .map((r) => r.path.toLowerCase()),
);

function isToolChat(method: string, path: string): boolean {
  if (method !== 'POST') return false;
  const p = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  return toolChatPaths.has(p.toLowerCase());
}

interface AccessKeyOptions {
  /** Every route but the open ones needs the key (PROXY_ACCESS_KEY set, or REQUIRE_ACCESS_KEY). */
  everything?: boolean;
  /** CLI_ALLOWED_TOOLS offers tools that touch the owner's files: tool-mode chats need the key. */
  fileToolsNeedKey?: boolean;
}

/** Data about the owner: usage rows, totals, limits, the CSV export, captured bodies (the request inspector). */
function isOwnerData(path: string): boolean {
  return path.toLowerCase().startsWith('/usage/');
}

/** Removes the headers that carried the key, so no route can forward it upstream (direct mode injects its login). */
function dropKeyHeaders(headers: Record<string, string | string[] | undefined>, key: string): void {
  const auth = headers.authorization;
  if (typeof auth === 'string' && /^bearer\s+/i.test(auth) && same(auth.replace(/^bearer\s+/i, '').trim(), key))
    delete headers.authorization;
  for (const h of ['x-api-key', 'x-proxy-access-key']) {
    const v = headers[h];
    if (typeof v === 'string' && same(v.trim(), key)) delete headers[h];
  }
}

const keyHelp = 'as your API key (Authorization: Bearer or x-api-key)';

export function accessKey(key: string, options: AccessKeyOptions = {}): ProxyMiddleware {
  return (ctx, next) => {
    const presented = presentedKeys(ctx.headers).some((k) => same(k, key));
    ctx.state.accessKeyPresented = presented;
    if (presented) dropKeyHeaders(ctx.req.headers, key);
    else if (!isOpenRoute(ctx.method, ctx.path)) {
      if (options.everything) {
        throw new ProxyError(
          'authentication',
          `This proxy requires its access key (PROXY_ACCESS_KEY, or the owner key with REQUIRE_ACCESS_KEY): send it ${keyHelp}`,
        );
      }
      if (isOwnerData(ctx.path)) {
        throw new ProxyError(
          'authentication',
          `Usage data belongs to the proxy's owner: send the owner key ${keyHelp}. It is in the file owner-key in the proxy's data directory, readable only by the owner (named at start-up; the desktop window reads usage without it). See docs/security.md.`,
        );
      }
      if (options.fileToolsNeedKey && isToolChat(ctx.method, ctx.path)) {
        throw new ProxyError(
          'permission',
          `This proxy lets the assistant CLI use tools on the owner's files (CLI_ALLOWED_TOOLS), so a tool-mode chat must carry the owner key: send it ${keyHelp}, or remove the file tools from CLI_ALLOWED_TOOLS. See docs/security.md.`,
        );
      }
    }
    return next();
  };
}
