// The OpenAI Responses API as a client wire format (docs/clients.md "Codex and the Responses API"): served on
// /compat/v1/responses, /v1/responses and /cc/v1/responses in tool mode, and /api/v1/responses in direct mode
// (route-table.ts). Its errors before headers are the compatible shape (docs/interface.md "Compatible errors") with the
// codes its clients act on; after headers, response.failed.

import { randomHex } from '../../http/request-id.js';
import type { AnswerWriter, WireFormat } from '../format.js';
import { compactionWriter } from './compaction-answer.js';
import {
  createResponseStreamState,
  failResponseStream,
  finishResponseStream,
  stepResponseStream,
} from './events-to-response-stream.js';
import { nativeMessageToResponse } from './message-to-response.js';
import { responsesRequestToNative, type ResponsesAnswerOptions } from './request-to-native.js';
import { compatErrorShape } from '../compat/error-shape.js';

export const responsesFormat: WireFormat<ResponsesAnswerOptions> = {
  name: 'responses',
  errorShape: compatErrorShape,
  chains: true,
  compacts: 'on-trigger',
  parse: responsesRequestToNative,
  answer(meta, options) {
    const id = options.id ?? `resp_${randomHex()}`;
    const writer: AnswerWriter = {
      whole: (message) => nativeMessageToResponse(message, id, meta, options),
      stream() {
        const state = createResponseStreamState(id, meta, options);
        return {
          step: (event) => stepResponseStream(event, state),
          failed: () => state.error !== undefined,
          finish: () => finishResponseStream(state),
          // After headers the failure is the stream's own last event, response.failed with the response so far.
          errors: { ...compatErrorShape, streamEvents: (err) => failResponseStream(state, err) },
        };
      },
    };
    // A compaction answers with its sealed summary instead (docs/compaction.md).
    return options.compaction ? compactionWriter(writer, options.compaction) : writer;
  },
};

/**
 * The compact endpoint (POST …/responses/compact, the openai SDK's responses.compact()): a Responses request whose
 * answer is always a compaction (docs/compaction.md), given whole, as the `response.compaction` object.
 */
export const responsesCompactFormat: WireFormat<ResponsesAnswerOptions> = {
  ...responsesFormat,
  name: 'responses-compact',
  compacts: 'always',
  parse: (body, context) => ({ ...responsesRequestToNative(body, context), stream: false }),
};
