// The stream writer of the two chat-completion formats (SPEC.md §6.1, §6.2): data-only events, [DONE] at the end,
// and after headers the family's error body followed by [DONE] (http/stream-error.ts "data-only").

import type { ProxyError } from '../errors.js';
import type { NativeStreamEvent } from './native.js';
import { errorTypeName } from '../http/render-error.js';
import type { SseEvent } from '../http/sse.js';
import { streamErrorEvents } from '../http/stream-error.js';
import type { Family } from '../route-table.js';
import type { StreamWriter } from './format.js';

const data = (items: unknown[]): SseEvent[] => items.map((item) => ({ data: item }));

interface DataOnlyTranslator {
  step(event: NativeStreamEvent): unknown[];
  finish(): { items: unknown[]; error?: ProxyError };
  failed(): boolean;
}

export function dataOnlyWriter(translator: DataOnlyTranslator, family: Family): StreamWriter {
  return {
    step: (event) => data(translator.step(event)),
    failed: translator.failed,
    finish: () => {
      const end = translator.finish();
      return { events: [...data(end.items), ...(end.error ? [] : [{ data: '[DONE]' }])], error: end.error };
    },
    fail: (err, requestId) => streamErrorEvents(err, 'data-only', family, requestId),
    errorType: (err) => errorTypeName(err, family),
  };
}
