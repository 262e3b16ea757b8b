// The native messages format (POST /v1/messages and its aliases in tool mode): the provider's own request,
// validated narrowly and answered as the native message or event stream (answer.ts). Direct mode's
// /api/v1/messages does not parse it at all: it is a byte-level reverse proxy (modes/direct/forward.ts).

import { nativeSamplingFields, type NativeRequest } from '../native.js';
import { nativeMessagesRequestSchema } from '../native-schemas.js';
import { validate } from '../validate.js';
import { readThinkingAndOutput } from '../request-checks.js';
import { ignoredOf } from '../request-rules.js';
import type { WireFormat } from '../format.js';
import { messagesAnswer } from './answer.js';
import { nativeErrorShape } from '../native-error-shape.js';

const honoured = new Set([
  'model',
  'messages',
  'system',
  'stream',
  'max_tokens',
  'thinking',
  'output_config',
  'tools',
  'tool_choice',
  ...nativeSamplingFields,
]);

export const messagesFormat: WireFormat<undefined> = {
  name: 'messages',
  errorShape: nativeErrorShape,
  clientTools: { types: ['custom'], directPath: '/api/v1/messages' },
  parse(body) {
    const parsed = validate(nativeMessagesRequestSchema, body);
    const request: NativeRequest = { model: parsed.model, messages: parsed.messages, max_tokens: parsed.max_tokens };
    if (parsed.system !== undefined) request.system = parsed.system;
    for (const key of nativeSamplingFields)
      if (parsed[key] != null) (request as Record<string, unknown>)[key] = parsed[key];
    if (parsed.tools && parsed.tools.length > 0) {
      request.tools = parsed.tools.map((t) => ({
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        input_schema: t.input_schema,
      }));
    }
    if (parsed.tool_choice) request.tool_choice = parsed.tool_choice;
    readThinkingAndOutput(body, request);
    return {
      request,
      stream: parsed.stream === true,
      // metadata is not passed on by this parse.
      ignored: ignoredOf(parsed, honoured, ['metadata']),
      warnings: [],
      clientNames: { parallel_tool_calls: 'tool_choice.disable_parallel_tool_use' },
      answer: undefined,
    };
  },
  answer: () => messagesAnswer(),
};
