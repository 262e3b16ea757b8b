// The compatible format's answer (the chat-completion routes of /compat, /cc, /sdk and /api,
// docs/interface.md "Compatible chat request"): completion JSON ("Chat completion"), or "Compatible stream" chunks
// ending with [DONE]; a request in the legacy `functions` form is answered with `function_call`. A failure after
// headers is the "Compatible errors" body, then [DONE].

import { randomHex } from '../../http/request-id.js';
import { chunkToLegacyFunctionCall, completionToLegacyFunctionCall } from './completion-to-legacy-function-call.js';
import { createCompatChunkState, finishCompatChunks, stepCompatChunks } from './native-events-to-compat-chunks.js';
import { nativeMessageToCompletion } from './native-message-to-completion.js';
import { dataOnlyWriter } from '../data-only-writer.js';
import { compatErrorShape } from './error-shape.js';
import type { AnswerMeta, AnswerWriter } from '../format.js';

export interface CompatAnswerOptions {
  /** stream_options.include_usage. */
  includeUsage: boolean;
  /** The request used the legacy `functions`, so the answer uses `function_call`. */
  legacyFunctions?: boolean;
}

export function compatAnswer(meta: AnswerMeta, options: CompatAnswerOptions): AnswerWriter {
  const id = `chatcmpl-${randomHex()}`;
  const legacy = options.legacyFunctions === true;
  return {
    whole(message) {
      const completion = nativeMessageToCompletion(message, { id, ...meta });
      return legacy ? completionToLegacyFunctionCall(completion) : completion;
    },
    stream() {
      const state = createCompatChunkState({ id, ...meta, includeUsage: options.includeUsage });
      return dataOnlyWriter(
        {
          step: (event) => {
            const chunks = stepCompatChunks(event, state);
            return legacy ? chunks.flatMap((c) => chunkToLegacyFunctionCall(c) ?? []) : chunks;
          },
          failed: () => state.error !== undefined,
          finish: () => {
            const end = finishCompatChunks(state);
            return { items: end.chunks, error: end.error };
          },
        },
        compatErrorShape,
      );
    },
  };
}
