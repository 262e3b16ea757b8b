// The native chat-completion format (POST /v1/chat/completions in tool mode, docs/interface.md "Native chat request"):
// the native request fields without tools, answered as a completion (answer.ts). A missing max_tokens gets a 400 that
// points OpenAI-format clients to /compat/v1 (docs/http.md).

import type { NativeRequest } from '../native.js';
import { nativeChatRequestToNative, parseNativeChatRequest } from './native-chat-request-to-native.js';
import { nativeBodyKeys, readThinkingAndOutput, refuseTools } from '../request-checks.js';
import { ignoredOf } from '../request-rules.js';
import type { WireFormat } from '../format.js';
import { nativeChatAnswer } from './answer.js';
import { nativeChatErrorShape } from './error-shape.js';

/** The keys read here: the native ones without tools (a mode that cannot honour a sampling setting names it). */
const honoured = new Set<string>(nativeBodyKeys);

export const nativeChatFormat: WireFormat<undefined> = {
  name: 'native-chat',
  errorShape: nativeChatErrorShape,
  parse(body) {
    refuseTools(body, ['tools', 'tool_choice']);
    const parsed = parseNativeChatRequest(body);
    const request: NativeRequest = nativeChatRequestToNative(parsed);
    delete (request as { stream?: boolean }).stream;
    readThinkingAndOutput(body, request);
    return {
      request,
      stream: parsed.stream === true,
      ignored: ignoredOf(parsed, honoured, []),
      warnings: [],
      clientNames: {},
      answer: undefined,
    };
  },
  answer: (meta) => nativeChatAnswer(meta),
};
