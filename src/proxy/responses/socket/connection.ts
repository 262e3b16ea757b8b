// One Responses WebSocket (docs/responses-socket.md): Codex's `responses_websockets=2026-02-06` protocol on a
// Responses base URL. Each `response.create` message is the Responses request body flattened beside its `type`;
// its answer is the same events as the HTTP stream, one text frame each, and the next message may follow on the
// same connection. Rules, each for a reason:
// - every response enters the main listener's own pipeline as a POST to the socket's path (http/exchange.ts: the
//   request id, the log line, the guards, the rate limit, the body limits, the route's mode, the chain and the one
//   answer path), with no HTTP request written: it is one ledger row with its own lane, is refused exactly as over
//   HTTP, and its answer's events come back as events, each sent as one text frame;
// - a refused response is one `error` frame carrying the HTTP status and the error body Codex reads
//   (`{"type": "error", "status", "error", "headers"}`); the connection stays open for the next message;
// - the prewarm (`generate: false`, before the first real turn) is answered `response.created` then
//   `response.completed` with no output and no provider call, and kept, since the turn after it chains to it;
// - the connection's own responses chain even with `store: false` (ConnectionResponses): Codex sends
//   `store: false` on every turn and names the previous response on the next;
// - while a response is open and nothing has been sent for `keepAliveMs`, a `{"type": "keepalive"}` text frame
//   goes out: Codex's idle timer counts every text frame and no ping frame (its socket pump answers pings itself);
// - the client going (close or error) aborts the open response (the CLI child or upstream request is freed by the
//   usual abort path, and the response is still recorded); the proxy going closes with 1001.

import type { IncomingHttpHeaders } from 'node:http';
import type { WebSocket } from 'ws';
import type { Exchange } from '../../http/exchange.js';
import { ConnectionResponses, newResponseId, type ResponseStore } from '../store.js';
import { storedResponseOf } from '../chain.js';
import { prewarmAnswer } from '../../formats/responses/response-parts.js';

interface SocketOptions {
  /** The main listener's pipeline, for each response (http/exchange.ts). */
  exchange: Exchange;
  store: ResponseStore;
  /** The path the socket was opened on: every response is a POST to it. */
  path: string;
  /** The handshake's headers, passed on to each response (the access key, the client's name, its auth). */
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  keepAliveMs: number;
  now: () => number;
}

/**
 * Headers of the handshake that describe the upgrade itself, not the requests sent on the socket; and its request
 * id, since every response is a request of its own.
 */
const handshakeOnly = new Set([
  'connection',
  'upgrade',
  'content-length',
  'transfer-encoding',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
  'x-request-id',
]);

type Message = Record<string, unknown>;

export class ResponsesSocket {
  private readonly own: ConnectionResponses;
  private readonly headers: IncomingHttpHeaders;
  private queue: Promise<void> = Promise.resolve();
  private open: AbortController | undefined;
  private lastSent = 0;
  private closing = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly opts: SocketOptions,
  ) {
    this.own = new ConnectionResponses(opts.store);
    this.headers = {};
    for (const [name, value] of Object.entries(opts.headers))
      if (value !== undefined && !handshakeOnly.has(name)) this.headers[name] = value;
    this.headers['content-type'] = 'application/json';
    ws.on('message', (data, isBinary) => {
      // One response at a time, in order: the protocol has no ids on its messages.
      this.queue = this.queue.then(() => this.receive(data, isBinary));
    });
    ws.on('close', () => this.open?.abort(new Error('the client closed the socket')));
    ws.on('error', () => this.open?.abort(new Error('the socket failed')));
  }

  /** The proxy is going: closes now when no response is open, else once it ends. */
  shutdown(): void {
    this.closing = true;
    if (!this.open) this.ws.close(1001, 'the proxy is shutting down');
  }

  private send(value: unknown): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(typeof value === 'string' ? value : JSON.stringify(value));
    this.lastSent = this.opts.now();
  }

  private sendError(status: number, error: unknown, headers: Record<string, string> = {}): void {
    this.send({ type: 'error', status, error, headers });
  }

  private async receive(data: unknown, isBinary: boolean): Promise<void> {
    if (this.ws.readyState !== this.ws.OPEN) return;
    let message: Message | undefined;
    try {
      const parsed: unknown = isBinary ? undefined : JSON.parse(String(data));
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) message = parsed as Message;
    } catch {
      // answered below
    }
    if (!message) return this.refuse('a message must be a JSON object with a type (docs/responses-socket.md)');
    // Codex tells the server it has read a response; nothing is owed for it.
    if (message.type === 'response.processed') return;
    if (message.type !== 'response.create')
      return this.refuse(`unknown message type ${JSON.stringify(String(message.type).slice(0, 60))}`);
    const { type: _type, generate, ...body } = message;
    try {
      if (generate === false) this.prewarm(body);
      else await this.respond(body);
    } finally {
      if (this.closing) this.ws.close(1001, 'the proxy is shutting down');
    }
  }

  private refuse(message: string): void {
    this.sendError(400, { type: 'invalid_request_error', code: 'invalid_request_error', message, param: null });
  }

  /** Codex's prewarm: a response with no output, kept so that the first real turn chains to it. */
  private prewarm(body: Message): void {
    const now = this.opts.now();
    const { events, done } = prewarmAnswer(newResponseId(), body, Math.floor(now / 1000));
    const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : null;
    this.own.put(storedResponseOf(done as unknown as Record<string, unknown>, previous, body.input, now));
    for (const event of events) this.send(event);
  }

  /** One response through the main listener's pipeline, its events sent as text frames. */
  private async respond(body: Message): Promise<void> {
    const abort = new AbortController();
    this.open = abort;
    this.lastSent = this.opts.now();
    const keepAlive = setInterval(
      () => {
        if (this.opts.now() - this.lastSent >= this.opts.keepAliveMs) this.send('{"type":"keepalive"}');
      },
      Math.max(10, Math.floor(this.opts.keepAliveMs / 2)),
    );
    try {
      const answer = await this.opts.exchange.run(
        {
          method: 'POST',
          path: this.opts.path,
          headers: this.headers,
          remoteAddress: this.opts.remoteAddress,
          body: Buffer.from(JSON.stringify({ ...body, stream: true })),
          state: { socketResponses: this.own },
          signal: abort.signal,
        },
        (event) => this.send(event.data),
      );
      if (!answer.streamed && !abort.signal.aborted) {
        const retryAfter = answer.headers['retry-after'];
        this.sendError(
          answer.status,
          errorOf(answer.body),
          retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
        );
      }
    } finally {
      clearInterval(keepAlive);
      this.open = undefined;
    }
  }
}

/** The error object of a refused response's body, as its route family's shape wrote it. */
function errorOf(body: unknown): unknown {
  let value = body;
  if (Buffer.isBuffer(value) || typeof value === 'string') {
    const text = String(value);
    try {
      value = JSON.parse(text);
    } catch {
      return { message: text.slice(0, 2000) };
    }
  }
  if (typeof value === 'object' && value !== null && 'error' in value) return (value as { error: unknown }).error;
  return value ?? { message: 'the response ended without an answer' };
}
