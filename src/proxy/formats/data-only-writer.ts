// The stream writer of the two chat-completion formats
// (docs/interface.md "Compatible stream", "Native chat-completion stream"): data-only events, [DONE] at the end, and
// after headers the format's error body followed by [DONE] (dataOnlyErrorEvents, its error shapes' streamEvents:
// formats/compat/error-shape.ts, formats/native-chat/error-shape.ts).

import type { ProxyError } from '../errors.js';
import type { NativeStreamEvent } from './native.js';
import type { StreamErrorShape } from '../http/stream-error.js';
import type { SseEvent } from '../http/sse.js';
import type { StreamWriter } from './format.js';

const data = (items: unknown[]): SseEvent[] => items.map((item) => ({ data: item }));
const done = (): SseEvent => ({ data: '[DONE]' });

/** A failure in a data-only stream: the error body as one event, then [DONE], so clients that wait for it stop
 * waiting. */
export function dataOnlyErrorEvents(body: unknown): SseEvent[] {
  return [{ data: body }, done()];
}

interface DataOnlyTranslator {
  step(event: NativeStreamEvent): unknown[];
  finish(): { items: unknown[]; error?: ProxyError };
  failed(): boolean;
}

export function dataOnlyWriter(translator: DataOnlyTranslator, errors: StreamErrorShape): StreamWriter {
  return {
    step: (event) => data(translator.step(event)),
    failed: translator.failed,
    finish: () => {
      const end = translator.finish();
      return { events: [...data(end.items), ...(end.error ? [] : [done()])], error: end.error };
    },
    errors,
  };
}
