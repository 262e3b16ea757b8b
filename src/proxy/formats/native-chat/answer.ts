// The native chat-completion format's answer (POST /v1/chat/completions, docs/interface.md "Native chat request"):
// completion JSON, or the data-only events ending with [DONE]; a failure after headers is the "Native errors" body,
// then [DONE].

import { randomHex } from '../../http/request-id.js';
import {
  createNativeChatStreamState,
  finishNativeChatStream,
  stepNativeChatStream,
} from './native-events-to-chat-stream.js';
import { nativeMessageToCompletion } from '../compat/native-message-to-completion.js';
import { dataOnlyWriter } from '../data-only-writer.js';
import { nativeChatErrorShape } from './error-shape.js';
import type { AnswerMeta, AnswerWriter } from '../format.js';

export function nativeChatAnswer(meta: AnswerMeta): AnswerWriter {
  const id = `chatcmpl-${randomHex()}`;
  return {
    whole: (message) => nativeMessageToCompletion(message, { id, ...meta }),
    stream() {
      const state = createNativeChatStreamState({ model: meta.model, id, created: meta.created });
      return dataOnlyWriter(
        {
          step: (event) => stepNativeChatStream(event, state),
          failed: () => state.error !== undefined,
          finish: () => {
            const end = finishNativeChatStream(state);
            return { items: end.events, error: end.error };
          },
        },
        nativeChatErrorShape,
      );
    },
  };
}
