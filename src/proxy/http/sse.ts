// The one SSE encoder (docs/principles.md "Writing streams"): routes hand over an async generator of events; this
// module turns it into a Readable for ctx.body. Cleanup lives in the generator's `finally`, which runs when the stream
// ends, fails, or the client disconnects (the Readable is destroyed and the generator is returned).

import { Readable } from 'node:stream';
import type { ProxyContext } from './types.js';

export interface SseEvent {
  /** The `event:` line; omitted for data-only streams (compat chunks, docs/interface.md "Compatible stream"). */
  event?: string;
  /** An object is JSON-encoded; a string (such as "[DONE]") is written as is. */
  data: unknown;
}

export function encodeSse(ev: SseEvent): string {
  const data = typeof ev.data === 'string' ? ev.data : JSON.stringify(ev.data);
  const lines = data
    .split('\n')
    .map((l) => `data: ${l}`)
    .join('\n');
  return (ev.event ? `event: ${ev.event}\n` : '') + lines + '\n\n';
}

/** Starts an SSE response on ctx from an async iterable of events. Headers are sent with the first event. */
export function sendSse(
  ctx: ProxyContext,
  events: AsyncIterable<SseEvent>,
  extraHeaders: Record<string, string> = {},
): void {
  ctx.status = 200;
  ctx.set('content-type', 'text/event-stream; charset=utf-8');
  ctx.set('cache-control', 'no-cache');
  ctx.set('connection', 'keep-alive');
  ctx.set('x-accel-buffering', 'no');
  for (const name in extraHeaders) ctx.set(name, extraHeaders[name]);
  // A request that came on a socket takes the events themselves (http/exchange.ts): no text to parse back.
  if (ctx.state.relay) return ctx.state.relay.relay(events);
  async function* encode() {
    for await (const ev of events) yield encodeSse(ev);
  }
  const body = Readable.from(encode(), { objectMode: false });
  ctx.req.socket.setNoDelay(true);
  ctx.body = body;
}
