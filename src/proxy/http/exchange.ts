// A request that arrives by another transport than HTTP enters the listener's own pipeline (docs/http.md "Requests
// that come on a socket"): a Responses WebSocket's handshake and each of its `response.create` messages
// (responses/socket/). The pipeline is the listener's one middleware chain and routes, the same function objects an
// HTTP request runs (request id, request log and ledger row, error renderer, guards, access key, rate limit, the
// route with its body reader, mode, chain and answer path). Nothing is written or parsed as HTTP on the way:
// - Koa's context is made over a FrameRequest (the message's body bytes, with the handshake's headers and address)
//   and a FrameResponse (a status and headers, and the end of the request, to its listeners);
// - an answer that streams hands its events to the transport as they are (`ProxyState.relay`, read by
//   http/sse.ts), never as SSE text to be parsed back;
// - a whole answer (an error, in its route family's shape) is handed back as the value the route set.
// The transport going away ends the request as a closed connection does: the request log sees no finish, records
// the client gone and fires the request's signal, which frees the CLI child or the upstream request.

import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeader, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type Koa from 'koa';
import type { SseEvent } from './sse.js';
import type { EventRelay, ProxyState } from './state.js';
import type { ProxyMiddleware } from './types.js';

export interface ExchangeRequest {
  method: 'GET' | 'POST';
  /** The path and query, as a request line would carry them. */
  path: string;
  headers: IncomingHttpHeaders;
  /** The head as received, when there was one (a handshake's); otherwise made from `headers`. */
  rawHeaders?: string[];
  remoteAddress: string | undefined;
  /** The body's bytes (a JSON object, read by the route's body reader as any body is). */
  body?: Buffer;
  /** What the transport tells the request's state before the chain runs (a socket's own responses, the upgrade). */
  state?: Partial<ProxyState>;
  /** Fires when the transport goes: the request then ends as one whose client went away. */
  signal?: AbortSignal;
}

export interface ExchangeAnswer {
  status: number;
  headers: Record<string, OutgoingHttpHeader>;
  /** The whole answer the route set (an object, bytes or text); undefined when it streamed its events. */
  body: unknown;
  streamed: boolean;
}

/** The request side of a context: the message's bytes as the body stream, with a request's head. */
class FrameRequest extends Readable {
  readonly httpVersionMajor = 1;
  readonly httpVersionMinor = 1;
  readonly httpVersion = '1.1';
  readonly socket: { remoteAddress: string | undefined };
  readonly headers: IncomingHttpHeaders;
  readonly rawHeaders: string[];
  public method: string;
  public url: string;

  constructor(request: ExchangeRequest) {
    super();
    const { body } = request;
    this.method = request.method;
    this.url = request.path;
    this.socket = { remoteAddress: request.remoteAddress };
    // A copy: the access key's check removes the key's headers from the request (http/access-key.ts), and the
    // transport sends the same headers with every request.
    this.headers = { ...request.headers };
    if (body) this.headers['content-length'] = String(body.length);
    this.rawHeaders = request.rawHeaders ?? rawHeadersOf(this.headers);
    if (body) this.push(body);
    this.push(null);
  }

  override _read(): void {
    // Everything was pushed at construction.
  }
}

function rawHeadersOf(headers: IncomingHttpHeaders): string[] {
  const raw: string[] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) raw.push(name, one);
  }
  return raw;
}

/** The response side of a context: what Koa and the middleware set, and the end of the request. */
class FrameResponse extends EventEmitter {
  statusCode = 404;
  statusMessage = '';
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  private readonly head = new Map<string, OutgoingHttpHeader>();

  setHeader(name: string, value: OutgoingHttpHeader): this {
    this.head.set(name.toLowerCase(), value);
    return this;
  }
  getHeader(name: string): OutgoingHttpHeader | undefined {
    return this.head.get(name.toLowerCase());
  }
  getHeaders(): Record<string, OutgoingHttpHeader> {
    return Object.fromEntries(this.head);
  }
  getHeaderNames(): string[] {
    return [...this.head.keys()];
  }
  hasHeader(name: string): boolean {
    return this.head.has(name.toLowerCase());
  }
  removeHeader(name: string): void {
    this.head.delete(name.toLowerCase());
  }
  flushHeaders(): void {
    this.headersSent = true;
  }

  /** The answer was handed over whole: the request log records it as finished. */
  finish(): void {
    if (this.writableEnded) return;
    this.headersSent = this.writableEnded = this.writableFinished = true;
    this.emit('finish');
    this.emit('close');
  }

  /** The transport went before the answer ended: the request log records the client gone. */
  drop(): void {
    if (this.writableEnded) return;
    this.writableEnded = true;
    this.emit('close');
  }
}

/** The exchange of one listener: its app (which makes the context) and its pipeline (chain and routes). */
export class Exchange {
  constructor(
    private readonly app: Koa<ProxyState>,
    private readonly pipeline: ProxyMiddleware,
  ) {}

  /** Runs one request of another transport through the pipeline; a streamed answer's events go to `sink`. */
  async run(request: ExchangeRequest, sink?: (event: SseEvent) => void): Promise<ExchangeAnswer> {
    const req = new FrameRequest(request);
    const res = new FrameResponse();
    const ctx = this.app.createContext(req as unknown as IncomingMessage, res as unknown as ServerResponse);
    let pumping: Promise<void> | undefined;
    const relay: EventRelay = {
      relay(events) {
        res.headersSent = true;
        pumping = pump(events, sink, request.signal);
      },
    };
    Object.assign(ctx.state, request.state, { relay });
    const gone = () => res.drop();
    request.signal?.addEventListener('abort', gone, { once: true });
    try {
      // The error renderer is in the chain: what reaches here is a bug of the chain itself, answered as a 500.
      await this.pipeline(ctx, async () => {}).catch((err: Error) => {
        ctx.status = 500;
        ctx.body = { error: { type: 'server_error', message: err.message } };
      });
      if (pumping) await pumping;
      const answer = {
        status: ctx.status,
        headers: res.getHeaders(),
        body: pumping ? undefined : ctx.body,
        streamed: !!pumping,
      };
      if (!request.signal?.aborted) res.finish();
      return answer;
    } finally {
      request.signal?.removeEventListener('abort', gone);
      res.drop();
    }
  }
}

/**
 * Hands each event to the transport until the answer ends or the transport goes. Leaving the loop returns the
 * answer's generator, whose `finally` ends the CLI child or the upstream request (chat/answer-chat.ts).
 */
async function pump(
  events: AsyncIterable<SseEvent>,
  sink: ((event: SseEvent) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  try {
    for await (const event of events) {
      if (signal?.aborted) break;
      sink?.(event);
    }
  } catch {
    // The answer's own errors were written as its events; a throw here is the transport gone mid-answer.
  }
}
