// The NDJSON encoder (application/x-ndjson, one JSON value per line): the stream framing of the Ollama API
// (docs/ollama.md), the counterpart of http/sse.ts for a format whose stream is not SSE (formats/format.ts
// StreamWriter.framing). A route hands over the same async generator of events; each event's data is one line. The
// set-up of the answer is the one of every stream (stream-response.ts).

import { sendStream, type SseEvent, type StreamFraming } from './stream-response.js';
import type { ProxyContext } from './types.js';

function encodeNdjson(ev: SseEvent): string {
  return `${typeof ev.data === 'string' ? ev.data : JSON.stringify(ev.data)}\n`;
}

const ndjsonFraming: StreamFraming = { contentType: 'application/x-ndjson', encode: encodeNdjson };

/** Starts an NDJSON response on ctx from an async iterable of events (their `event` names are not written). */
export function sendNdjson(
  ctx: ProxyContext,
  events: AsyncIterable<SseEvent>,
  extraHeaders: Record<string, string> = {},
): void {
  sendStream(ctx, ndjsonFraming, events, extraHeaders);
}
