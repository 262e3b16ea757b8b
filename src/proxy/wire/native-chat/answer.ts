// The native chat-completion format's answer (POST /v1/chat/completions, SPEC.md §2.1): completion JSON (§2.4), or
// the §6.2 data-only events ending with [DONE]; a failure after headers is the §7.2 body, then [DONE].

import { randomHex } from '../../http/request-id.js';
import { errorTypeName } from '../../http/render-error.js';
import { streamErrorEvents } from '../../http/stream-error.js';
import type { SseEvent } from '../../http/sse.js';
import { createNativeChatStreamState, finishNativeChatStream, stepNativeChatStream } from '../../translate/native-events-to-chat-stream.js';
import { nativeMessageToCompletion } from '../../translate/native-message-to-completion.js';
import type { AnswerMeta, AnswerWriter } from '../wire-format.js';

const data = (items: unknown[]): SseEvent[] => items.map((item) => ({ data: item }));

export function nativeChatAnswer(meta: AnswerMeta): AnswerWriter {
  const id = `chatcmpl-${randomHex()}`;
  return {
    whole: (message) => nativeMessageToCompletion(message, { id, ...meta }),
    stream() {
      const state = createNativeChatStreamState({ model: meta.model, id, created: meta.created });
      return {
        step: (event) => data(stepNativeChatStream(event, state)),
        failed: () => state.error !== undefined,
        finish: () => {
          const end = finishNativeChatStream(state);
          return { events: [...data(end.events), ...(end.error ? [] : [{ data: '[DONE]' }])], error: end.error };
        },
        fail: (err, requestId) => streamErrorEvents(err, 'data-only', 'native', requestId),
        errorType: (err) => errorTypeName(err, 'native'),
      };
    },
  };
}
