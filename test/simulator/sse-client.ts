// Reading SSE in tests: events from a fetch Response (or from a whole text), parsed with eventsource-parser so a test
// never splits chunks on '\n' itself (docs/principles.md "Reading streams"). Each event notes when it arrived and in
// which body read.

import { createParser } from 'eventsource-parser';

export interface SseEvent {
  /** The `event:` field, undefined when the server sent none (data-only streams). */
  event?: string;
  data: string;
  /** data parsed as JSON, or undefined (e.g. for `[DONE]`). */
  json: unknown;
  /** Date.now() when the chunk holding the end of this event was read. */
  at: number;
  /** 0-based index of the body read that completed this event: distinct values prove separate writes arrived. */
  read: number;
}

function toEvent(msg: { event?: string; data: string }, at: number, read: number): SseEvent {
  let json: unknown;
  try {
    json = JSON.parse(msg.data);
  } catch {
    json = undefined;
  }
  return { event: msg.event, data: msg.data, json, at, read };
}

/** Parses a complete SSE text. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (msg) => events.push(toEvent(msg, Date.now(), 0)) });
  parser.feed(text);
  parser.reset({ consume: true });
  return events;
}

/**
 * Reads a streamed body to its end and returns its events. Rejects when the stream fails (e.g. a reset), unless
 * `tolerateErrors` is set, in which case the events read so far are returned and `error` holds the failure.
 */
export async function readSse(
  response: Response,
  opts: { onEvent?: (e: SseEvent) => void; tolerateErrors?: boolean } = {},
): Promise<SseEvent[] & { error?: unknown }> {
  const events: SseEvent[] & { error?: unknown } = [];
  let read = 0;
  const parser = createParser({
    onEvent: (msg) => {
      const e = toEvent(msg, Date.now(), read);
      events.push(e);
      opts.onEvent?.(e);
    },
  });
  if (!response.body) return events;
  const decoder = new TextDecoder();
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      parser.feed(decoder.decode(chunk, { stream: true }));
      read++;
    }
    parser.feed(decoder.decode());
  } catch (err) {
    if (!opts.tolerateErrors) throw err;
    events.error = err;
  }
  return events;
}
