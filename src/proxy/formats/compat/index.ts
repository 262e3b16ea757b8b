// The compatible format (OpenAI chat completions, docs/interface.md "Compatible chat request"): POST /compat|/cc|/sdk
// /v1/chat/completions in tool mode and /api/v1/chat/completions in direct mode, with one parse for both. The legacy
// `functions` form is taken as `tools` and answered in its own form (docs/tool-mode.md), in either mode.

import { compatChatRequestSchema, type CompatChatRequest } from './schema.js';
import { validate } from '../validate.js';
import { compatRequestToNative } from './compat-request-to-native.js';
import { legacyFunctionsToTools } from './legacy-functions-to-tools.js';
import type { WireFormat } from '../format.js';
import { compatAnswer, type CompatAnswerOptions } from './answer.js';
import { compatErrorShape } from './error-shape.js';

export const compatFormat: WireFormat<CompatAnswerOptions> = {
  name: 'compat',
  errorShape: compatErrorShape,
  clientTools: { types: ['function'], directPath: '/api/v1/chat/completions' },
  parse(raw, { api }) {
    const { body, legacy } = legacyFunctionsToTools(raw);
    const parsed: CompatChatRequest = validate(compatChatRequestSchema, body);
    // reasoning_effort and response_format arrive as intent (adaptive thinking with an effort, output_config.format);
    // the mode fits them to the model (docs/models.md).
    const { request, warnings, ignored } = compatRequestToNative(parsed, {
      defaultMaxTokens: api.defaultMaxTokens,
      documents: api.documents,
    });
    const { stream, ...native } = request;
    return {
      request: native,
      stream: stream === true,
      ignored,
      warnings,
      clientNames: {
        stop_sequences: 'stop',
        thinking: 'reasoning_effort',
        max_tokens: parsed.max_completion_tokens != null ? 'max_completion_tokens' : 'max_tokens',
        format: 'response_format',
        schema: 'response_format.json_schema.schema',
        toolSchema: parsed.functions != null ? 'functions.parameters' : 'tools.function.parameters',
        strict: 'tools.function.strict',
        tool_choice: 'tool_choice',
      },
      ...(parsed.max_completion_tokens == null && parsed.max_tokens == null ? { maxTokensDefaulted: true } : {}),
      ...(legacy ? { toolResultsReturn: false } : {}),
      answer: { includeUsage: parsed.stream_options?.include_usage === true, legacyFunctions: legacy },
    };
  },
  answer: (meta, options) => compatAnswer(meta, options),
};
