// The one SSE encoder (docs/principles.md "Writing streams"): routes hand over an async generator of events; the one
// stream set-up (stream-response.ts) turns it into a Readable for ctx.body, each event written as below. Cleanup lives
// in the generator's `finally`, which runs when the stream ends, fails, or the client disconnects.

import { sendStream, type SseEvent, type StreamFraming } from './stream-response.js';
import type { ProxyContext } from './types.js';

export type { SseEvent };

export function encodeSse(ev: SseEvent): string {
  const data = typeof ev.data === 'string' ? ev.data : JSON.stringify(ev.data);
  const lines = data
    .split('\n')
    .map((l) => `data: ${l}`)
    .join('\n');
  return (ev.event ? `event: ${ev.event}\n` : '') + lines + '\n\n';
}

const sseFraming: StreamFraming = {
  contentType: 'text/event-stream; charset=utf-8',
  headers: { connection: 'keep-alive' },
  encode: encodeSse,
};

/** Starts an SSE response on ctx from an async iterable of events (the set-up: stream-response.ts). */
export function sendSse(
  ctx: ProxyContext,
  events: AsyncIterable<SseEvent>,
  extraHeaders: Record<string, string> = {},
): void {
  sendStream(ctx, sseFraming, events, extraHeaders);
}
