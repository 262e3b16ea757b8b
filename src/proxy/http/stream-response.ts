// The one set-up of a streamed answer, whatever its framing (SSE in http/sse.ts, NDJSON in http/ndjson.ts): status
// 200, the framing's content type and headers, no caching and no buffering by a proxy in front, Nagle off on the
// socket, and a Readable over the route's async generator of events, each encoded as the framing says (or, for a
// request of another transport, the events themselves handed to it: http/exchange.ts). Cleanup lives
// in the generator's `finally`, which runs when the stream ends, fails, or the client disconnects (the Readable is
// destroyed and the generator is returned).

import { Readable } from 'node:stream';
import type { ProxyContext } from './types.js';

/** One event of a streamed answer, whatever its framing (named for SSE, where its two fields come from). */
export interface SseEvent {
  /** The `event:` line; omitted for data-only streams (compat chunks, docs/interface.md "Compatible stream"). */
  event?: string;
  /** An object is JSON-encoded; a string (such as "[DONE]") is written as is. */
  data: unknown;
}

/** How events are written on the wire. */
export interface StreamFraming {
  contentType: string;
  /** Headers of this framing besides the content type. */
  headers?: Record<string, string>;
  encode(event: SseEvent): string;
}

/** Starts a streamed answer on ctx from an async iterable of events. Headers are sent with the first event. */
export function sendStream(
  ctx: ProxyContext,
  framing: StreamFraming,
  events: AsyncIterable<SseEvent>,
  extraHeaders: Record<string, string>,
): void {
  ctx.status = 200;
  ctx.set('content-type', framing.contentType);
  ctx.set('cache-control', 'no-cache');
  for (const name in framing.headers) ctx.set(name, framing.headers[name]);
  ctx.set('x-accel-buffering', 'no');
  for (const name in extraHeaders) ctx.set(name, extraHeaders[name]);
  // A request that came on a socket takes the events themselves (http/exchange.ts): no text to parse back.
  if (ctx.state.relay) return ctx.state.relay.relay(events);
  async function* encode() {
    for await (const ev of events) yield framing.encode(ev);
  }
  ctx.req.socket.setNoDelay(true);
  ctx.body = Readable.from(encode(), { objectMode: false });
}
