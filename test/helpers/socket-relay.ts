// A recording relay between a client and the proxy, on 127.0.0.1 with an OS-chosen port: WebSocket upgrades are
// relayed frame by frame, plain HTTP requests forwarded as they are. It records what the client sends (the
// upgrade's headers, each message, each HTTP body) and when the first answer of each came back, so a test can show
// which transport a client used, keep what it sent as a fixture, and measure bytes and time to the first event.
// The target can change (a proxy restarted on another port); `hold()` makes new connections wait until `release()`.

import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';

export interface RelayedTurn {
  transport: 'socket' | 'http';
  /** The client's message or request body. */
  body: string;
  bytes: number;
  sentAt: number;
  /** ms from the client's message to the first event (socket frame or response bytes) back. */
  firstEventMs?: number;
}

export interface SocketRelay {
  url: string;
  upgrades: IncomingHttpHeaders[];
  turns: RelayedTurn[];
  /** Server frames' types, in order, per socket turn. */
  events: string[];
  target: string;
  /** Calls `fn` on every frame from the proxy (a test's hook, e.g. to restart the proxy after a turn). */
  onEvent?: (type: string) => void;
  hold(): void;
  release(): void;
  /** Answers every WebSocket upgrade with a 404, as a server without the socket does: the client falls back to HTTP. */
  refuseUpgrades: boolean;
  /** Closes every relayed socket with `code`. */
  dropSockets(code: number): void;
  close(): Promise<void>;
}

const relayHeaders = (headers: IncomingHttpHeaders) =>
  Object.fromEntries(
    Object.entries(headers).filter(
      ([k, v]) => v !== undefined && !k.startsWith('sec-websocket') && !['connection', 'upgrade', 'host'].includes(k),
    ),
  ) as Record<string, string>;

export async function startSocketRelay(target: string): Promise<SocketRelay> {
  let gate: Promise<void> = Promise.resolve();
  let open: (() => void) | undefined;
  const sockets = new Set<WebSocket>();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: true });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const turn: RelayedTurn = { transport: 'http', body: body.toString(), bytes: body.length, sentAt: Date.now() };
      if (req.method === 'POST') relay.turns.push(turn);
      void gate.then(() => {
        const up = httpRequest(`${relay.target}${req.url}`, { method: req.method, headers: relayHeaders(req.headers) });
        up.on('response', (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.once('data', () => (turn.firstEventMs ??= Date.now() - turn.sentAt));
          answer.pipe(res);
        });
        up.on('error', () => res.destroy());
        up.end(body);
      });
    });
  });
  server.on('upgrade', (req, socket, head) => {
    relay.upgrades.push(req.headers);
    if (relay.refuseUpgrades) {
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
      return;
    }
    void gate.then(() => {
      const upstream = new WebSocket(`${relay.target.replace(/^http/, 'ws')}${req.url}`, {
        headers: relayHeaders(req.headers),
      });
      upstream.once('unexpected-response', (_r, res) => {
        socket.end(`HTTP/1.1 ${res.statusCode} Refused\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
      });
      upstream.once('error', () => socket.destroy());
      upstream.once('open', () => {
        wss.handleUpgrade(req, socket, head, (client) => {
          sockets.add(client);
          let turn: RelayedTurn | undefined;
          client.on('message', (data) => {
            const text = String(data);
            turn = { transport: 'socket', body: text, bytes: Buffer.byteLength(text), sentAt: Date.now() };
            relay.turns.push(turn);
            upstream.send(text);
          });
          upstream.on('message', (data) => {
            const text = String(data);
            if (turn) turn.firstEventMs ??= Date.now() - turn.sentAt;
            const type = String((JSON.parse(text) as { type?: unknown }).type);
            relay.events.push(type);
            client.send(text);
            relay.onEvent?.(type);
          });
          client.on('close', () => upstream.close());
          upstream.on('close', (code) => {
            sockets.delete(client);
            client.close(code === 1005 ? 1000 : code);
          });
        });
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const relay: SocketRelay = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    upgrades: [],
    turns: [],
    events: [],
    target,
    refuseUpgrades: false,
    hold() {
      gate = new Promise((r) => (open = r));
    },
    release() {
      open?.();
    },
    dropSockets(code) {
      for (const s of sockets) s.close(code);
    },
    async close() {
      for (const s of sockets) s.terminate();
      await new Promise((r) => server.close(r));
    },
  };
  return relay;
}
