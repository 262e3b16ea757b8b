// The NDJSON encoder (application/x-ndjson, one JSON value per line): the stream framing of the Ollama API
// (docs/ollama.md), the counterpart of http/sse.ts for a format whose stream is not SSE (formats/format.ts
// StreamWriter.framing). A route hands over the same async generator of events; each event's data is one line.
// Cleanup lives in the generator's `finally`, as with SSE.

import { Readable } from 'node:stream';
import type { SseEvent } from './sse.js';
import type { ProxyContext } from './types.js';

function encodeNdjson(ev: SseEvent): string {
  return `${typeof ev.data === 'string' ? ev.data : JSON.stringify(ev.data)}\n`;
}

/** Starts an NDJSON response on ctx from an async iterable of events (their `event` names are not written). */
export function sendNdjson(
  ctx: ProxyContext,
  events: AsyncIterable<SseEvent>,
  extraHeaders: Record<string, string> = {},
): void {
  ctx.status = 200;
  ctx.set('content-type', 'application/x-ndjson');
  ctx.set('cache-control', 'no-cache');
  ctx.set('x-accel-buffering', 'no');
  for (const name in extraHeaders) ctx.set(name, extraHeaders[name]);
  async function* encode() {
    for await (const ev of events) yield encodeNdjson(ev);
  }
  ctx.req.socket.setNoDelay(true);
  ctx.body = Readable.from(encode(), { objectMode: false });
}
