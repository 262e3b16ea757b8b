// One Responses WebSocket (docs/responses-socket.md): Codex's `responses_websockets=2026-02-06` protocol on a
// Responses base URL. Each `response.create` message is the Responses request body flattened beside its `type`;
// its answer is the same events as the HTTP stream, one text frame each, and the next message may follow on the
// same connection. Rules, each for a reason:
// - every response is dispatched through the proxy's own middleware chain as a POST to the socket's path (the
//   request id, the log line, the guards, the rate limit, the body limits, the route's mode and the one answer
//   path): it is one ledger row with its own lane, and is refused exactly as over HTTP;
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

import type { IncomingHttpHeaders, RequestListener } from 'node:http';
import { createParser } from 'eventsource-parser';
import inject from 'light-my-request';
import type { WebSocket } from 'ws';
import { ConnectionResponses, newResponseId } from '../store.js';
import type { ResponseChains } from '../chain-step.js';
import { storedResponseOf } from '../chain.js';
import { baseResponse } from '../../formats/responses/response-parts.js';

interface SocketOptions {
  /** The app's request listener (the main listener's middleware chain and routes). */
  dispatch: RequestListener;
  chains: ResponseChains;
  /** The path the socket was opened on: every response is a POST to it. */
  path: string;
  /** The handshake's headers, passed on to each response (the access key, the client's name, its auth). */
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  keepAliveMs: number;
  now: () => number;
}

/** Headers of the handshake that describe the upgrade itself, not the requests sent on the socket. */
const handshakeOnly = new Set([
  'connection',
  'upgrade',
  'content-length',
  'transfer-encoding',
  'sec-websocket-key',
  'sec-websocket-version',
  'sec-websocket-extensions',
  'sec-websocket-protocol',
]);

type Message = Record<string, unknown>;

export class ResponsesSocket {
  private readonly own: ConnectionResponses;
  private readonly headers: Record<string, string | string[]>;
  private queue: Promise<void> = Promise.resolve();
  private open: AbortController | undefined;
  private lastSent = 0;
  private closing = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly opts: SocketOptions,
  ) {
    this.own = new ConnectionResponses(opts.chains.store);
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

  private send(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(text);
    this.lastSent = this.opts.now();
  }

  private sendError(status: number, error: unknown, headers: Record<string, string> = {}): void {
    this.send(JSON.stringify({ type: 'error', status, error, headers }));
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
    const id = newResponseId();
    const previous = typeof body.previous_response_id === 'string' ? body.previous_response_id : null;
    const response = baseResponse(
      id,
      { model: String(body.model ?? ''), created: Math.floor(this.opts.now() / 1000) },
      {
        customTools: new Set(),
        parallelToolCalls: body.parallel_tool_calls !== false,
        toolChoice: body.tool_choice ?? 'auto',
        tools: Array.isArray(body.tools) ? body.tools : [],
        previousResponseId: previous,
        store: body.store !== false,
      },
    );
    let sequence = 0;
    this.send(JSON.stringify({ type: 'response.created', sequence_number: sequence++, response }));
    const usage = { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, total_tokens: 0 };
    const done = { ...response, status: 'completed', usage };
    this.own.put(storedResponseOf(done, previous, body.input, this.opts.now()));
    this.send(JSON.stringify({ type: 'response.completed', sequence_number: sequence, response: done }));
  }

  /** One response through the middleware chain, its events relayed as text frames. */
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
    const { chains, dispatch } = this.opts;
    try {
      const res = await inject(
        (req, res) => {
          chains.sockets.set(req, this.own);
          // The client going ends the answer as a closed connection would: the request log sees it gone and fires
          // the request's signal, which ends the CLI child or the upstream request.
          abort.signal.addEventListener('abort', () => res.destroy(), { once: true });
          dispatch(req, res);
        },
        {
          method: 'POST',
          url: this.opts.path,
          headers: this.headers,
          payload: JSON.stringify({ ...body, stream: true }),
          remoteAddress: this.opts.remoteAddress,
          signal: abort.signal,
          payloadAsStream: true,
          // The options are this module's own; checking them on every response cost about a millisecond.
          validate: false,
        },
      );
      const stream = res.stream();
      if (res.statusCode !== 200 || !String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        let text = '';
        for await (const chunk of stream) text += String(chunk);
        let error: unknown = { message: text.slice(0, 2000) };
        try {
          const parsed = JSON.parse(text) as { error?: unknown };
          error = parsed.error ?? parsed;
        } catch {
          // not JSON: its text is the message
        }
        const retryAfter = res.headers['retry-after'];
        this.sendError(res.statusCode, error, retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) });
        return;
      }
      const parser = createParser({ onEvent: (event) => this.send(event.data) });
      // A character split across two chunks is joined before it is parsed.
      const decoder = new TextDecoder();
      for await (const chunk of stream) parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
    } catch (err) {
      // The client went away mid-response: the abort already reached the chat; nothing is left to tell.
      if (!abort.signal.aborted)
        this.sendError(500, { type: 'server_error', code: 'internal_server_error', message: (err as Error).message });
    } finally {
      clearInterval(keepAlive);
      this.open = undefined;
    }
  }
}
