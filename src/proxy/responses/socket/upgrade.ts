// The WebSocket upgrade of the Responses base URLs (docs/responses-socket.md), on the main listener's 'upgrade'
// event, with the ecosystem's server library (`ws`). A socket is outside a browser's CORS rules, so the guards run
// at the upgrade: the handshake enters the main listener's own pipeline (http/exchange.ts) as `GET {path}` with its
// own headers and address (host guard, cross-site guard, access key, rate limit, the mode's on/off setting, the
// request log), and the route of each `GET {base}/responses` row accepts it only when the upgrade event passed it
// in (`ProxyState.upgrade`). Anything else (a refused guard, another path, a plain GET) is answered as the same HTTP
// error a request would get, and the connection closed. The connection caps apply as to any connection: a socket
// is one. Each message on an accepted socket is a request of its own (connection.ts).

import { STATUS_CODES, type IncomingMessage, type OutgoingHttpHeader, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import type { Exchange } from '../../http/exchange.js';
import { ProxyError } from '../../errors.js';
import type { ProxyContext } from '../../http/types.js';
import { routeTable } from '../../route-table.js';
import type { ResponseStore } from '../store.js';
import { addRoute, type ProxyRouter } from '../../http/add-route.js';
import type { Services } from '../../services.js';
import { ResponsesSocket } from './connection.js';

/** A text frame goes out when a response has been silent this long (Codex's idle timer counts text frames). */
const socketKeepAliveMs = 10_000;

/**
 * `GET {base}/responses`: a handshake the upgrade event passed in (`state.upgrade`) that passed every guard is
 * accepted (204, then upgraded by attachResponsesSocket); a plain GET is told the path speaks a socket (426). Never
 * a ledger row: the socket's responses are.
 */
function registerSocketHandshakes(router: ProxyRouter, services: Services): void {
  for (const decl of routeTable) {
    if (decl.method !== 'GET' || !decl.path.endsWith('/responses')) continue;
    addRoute(router, services, {
      method: 'GET',
      path: decl.path,
      handler: async (ctx: ProxyContext) => {
        ctx.state.offLedger = true;
        if (ctx.state.upgrade !== true)
          throw new ProxyError(
            'invalid_request',
            'This path takes the Responses API as POST, or as a WebSocket (docs/responses-socket.md)',
            { status: 426, headers: { upgrade: 'websocket' } },
          );
        ctx.status = 204;
      },
    });
  }
}

interface ResponsesSockets {
  /** Handles the upgrades of a listening server whose pipeline `exchange` runs. */
  attach(server: Server, exchange: Exchange): void;
  /** Closes every socket with 1001 (at once, or when its open response ends). */
  shutdown(): void;
}

/** The handshake routes of one proxy, and its upgrade handler to attach once it listens. */
export function responsesSockets(router: ProxyRouter, services: Services, store: ResponseStore): ResponsesSockets {
  registerSocketHandshakes(router, services);
  let attached: { shutdown(): void } | undefined;
  return {
    attach(server, exchange) {
      attached = attachResponsesSocket(server, exchange, store, {
        now: services.deps.now,
        maxPayload: services.config.bodyLimitBytes,
      });
    },
    shutdown: () => attached?.shutdown(),
  };
}

function attachResponsesSocket(
  server: Server,
  exchange: Exchange,
  store: ResponseStore,
  opts: { keepAliveMs?: number; now: () => number; maxPayload: number },
): { shutdown(): void } {
  // Codex offers permessage-deflate, and is answered without it: its client is on this machine, where compressing
  // every frame saves nothing and doubled the proxy's CPU per turn (docs/responses-socket.md "Frames").
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: opts.maxPayload });
  const open = new Set<ResponsesSocket>();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const handshake = exchange.run({
      method: 'GET',
      path: req.url ?? '/',
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      remoteAddress: req.socket.remoteAddress,
      state: { upgrade: true },
    });
    void handshake.then(
      (answer) => {
        if (answer.status !== 204 || String(req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
          refuse(socket, answer.status === 204 ? 400 : answer.status, answer.headers, bytesOf(answer.body));
          return;
        }
        wss.handleUpgrade(req, socket, head, (ws) => {
          const conn = new ResponsesSocket(ws, {
            exchange,
            store,
            path: new URL(req.url ?? '/', 'http://x').pathname,
            headers: req.headers,
            remoteAddress: req.socket.remoteAddress,
            keepAliveMs: opts.keepAliveMs ?? socketKeepAliveMs,
            now: opts.now,
          });
          open.add(conn);
          ws.once('close', () => open.delete(conn));
        });
      },
      () => socket.destroy(),
    );
  });

  return {
    shutdown() {
      for (const conn of open) conn.shutdown();
    },
  };
}

/** A refused handshake's body, as the route family's error shape wrote it. */
function bytesOf(body: unknown): Buffer {
  if (Buffer.isBuffer(body)) return body;
  if (body === undefined || body === null) return Buffer.alloc(0);
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
}

/** The handshake's HTTP answer on the raw connection, then the end of it. */
function refuse(socket: Duplex, status: number, headers: Record<string, OutgoingHttpHeader>, body: Buffer): void {
  if (!socket.writable) return void socket.destroy();
  const lines = [`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}`];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || name === 'connection' || name === 'transfer-encoding' || name === 'content-length')
      continue;
    for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${String(v)}`);
  }
  lines.push(`content-length: ${body.length}`, 'connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n')), body]));
}
