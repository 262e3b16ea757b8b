// The one reader of upstream server-sent events (docs/principles.md "Reading streams": never a hand-rolled split).
// Bytes arrive in arbitrary pieces: a UTF-8 character or a `\r\n` line end may be cut between two reads, so the
// bytes go through one streaming decoder and the parser keeps partial lines until they are complete. Node's
// StringDecoder rather than TextDecoder: the same UTF-8 handling (an invalid sequence becomes U+FFFD), without an
// ICU converter set up for every request.
// Push form (SseReader) for code that is handed chunks as they pass (the direct backend, and the chat observer
// reading a copy of the byte-level forwarder's answer); pull form (readSse) for the response-API client, which
// consumes its upstream body event by event.

import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';

export type SseMessage = Pick<EventSourceMessage, 'event' | 'data'>;

export class SseReader {
  private readonly parser: EventSourceParser;
  private readonly decoder = new StringDecoder('utf8');
  private ready: SseMessage[] = [];
  /** Text has been decoded: a byte-order mark can only come first (the SSE rule ignores one there). */
  private started = false;

  constructor() {
    this.parser = createParser({ onEvent: (msg) => void this.ready.push({ event: msg.event, data: msg.data }) });
  }

  /** The events completed by this chunk, in order. */
  feed(chunk: Uint8Array): SseMessage[] {
    this.push(this.decoder.write(chunk));
    return this.take();
  }

  /**
   * The body ended: what the decoder still held is parsed. An event the sender did not close with its blank line is
   * not dispatched (the SSE rule for a stream that ends mid-event): a cut answer never looks complete.
   */
  end(): SseMessage[] {
    this.push(this.decoder.end());
    this.parser.reset({ consume: true });
    return this.take();
  }

  private push(text: string): void {
    if (text === '') return;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.parser.feed(text);
  }

  private take(): SseMessage[] {
    if (this.ready.length === 0) return [];
    const out = this.ready;
    this.ready = [];
    return out;
  }
}

/**
 * The events of an upstream body as they arrive. A failed read is thrown as it came (the caller maps it with
 * upstream-error.ts); leaving the loop early does not destroy the body: its owner does that in its `finally`.
 */
export async function* readSse(body: AsyncIterable<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = new SseReader();
  for await (const chunk of body) yield* reader.feed(chunk);
  yield* reader.end();
}
