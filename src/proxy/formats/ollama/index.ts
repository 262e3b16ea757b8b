// The Ollama API's chat and generate as client wire formats on the contract (formats/format.ts), served by the
// Ollama listener (docs/ollama.md, ollama/) on /api/chat and /api/generate, in the mode OLLAMA_MODE
// names (route-table.ts rows with modeBySetting). Errors are Ollama's `{"error": "..."}` before headers and one
// such line after (error-shape.ts); streams are NDJSON, not SSE.

import { validate } from '../validate.js';
import type { ClientNames, ParseContext, WireFormat, WireRequest } from '../format.js';
import { ollamaErrorShape } from './error-shape.js';
import {
  createOllamaStreamState,
  finishOllamaStream,
  nativeMessageToOllama,
  ollamaLoadAnswer,
  stepOllamaStream,
  type OllamaAnswerKind,
} from './native-to-ollama.js';
import {
  modelOfOllamaName,
  ollamaChatToNative,
  ollamaGenerateToNative,
  type OllamaToNativeResult,
} from './request-to-native.js';
import { ollamaChatRequestSchema, ollamaGenerateRequestSchema } from './schemas.js';

interface OllamaAnswerOptions {
  kind: OllamaAnswerKind;
  /** Nothing was asked (Ollama's "load the model"): the answer is the done line with done_reason "load". */
  loadOnly: boolean;
}

/** The native fields the CLI cannot take, by their Ollama names (tool mode names them as ignored, modes/tool/prepare.ts). */
const clientNames: ClientNames = {
  temperature: 'options.temperature',
  top_p: 'options.top_p',
  top_k: 'options.top_k',
  stop_sequences: 'options.stop',
  thinking: 'think',
  max_tokens: 'options.num_predict',
  format: 'format',
  schema: 'format',
  toolSchema: 'tools.function.parameters',
};

function wireRequestOf(kind: OllamaAnswerKind, parsed: OllamaToNativeResult): WireRequest<OllamaAnswerOptions> {
  const { stream: _stream, ...request } = parsed.request;
  // Ollama names carry a tag; the mode resolves the name without it.
  request.model = modelOfOllamaName(request.model);
  return {
    request,
    stream: parsed.stream,
    ignored: parsed.ignored,
    warnings: parsed.warnings,
    clientNames,
    ...(parsed.maxTokensDefaulted ? { maxTokensDefaulted: true } : {}),
    answer: { kind, loadOnly: parsed.loadOnly },
    ...(parsed.loadOnly ? { asksNothing: true } : {}),
  };
}

function answerOf(meta: Parameters<WireFormat['answer']>[0], options: OllamaAnswerOptions) {
  const now = meta.now ?? Date.now;
  const answerMeta = { kind: options.kind, model: meta.model, startedAt: meta.startedAt ?? now() };
  return {
    whole: (message: Parameters<typeof nativeMessageToOllama>[0]) =>
      options.loadOnly ? ollamaLoadAnswer(answerMeta, now()) : nativeMessageToOllama(message, answerMeta, now()),
    stream() {
      const state = createOllamaStreamState(answerMeta, now);
      return {
        framing: 'ndjson' as const,
        step: (event: Parameters<typeof stepOllamaStream>[0]) =>
          stepOllamaStream(event, state).map((line) => ({ data: line })),
        failed: () => state.error !== undefined,
        finish: () => {
          const end = finishOllamaStream(state);
          return { events: end.lines.map((line) => ({ data: line })), error: end.error };
        },
        errors: ollamaErrorShape,
      };
    },
  };
}

function translation(context: ParseContext) {
  const { api } = context;
  return { defaultMaxTokens: api.defaultMaxTokens };
}

export const ollamaChatFormat: WireFormat<OllamaAnswerOptions> = {
  name: 'ollama-chat',
  errorShape: ollamaErrorShape,
  parse: (body, context) =>
    wireRequestOf('chat', ollamaChatToNative(validate(ollamaChatRequestSchema, body), translation(context))),
  answer: answerOf,
};

export const ollamaGenerateFormat: WireFormat<OllamaAnswerOptions> = {
  name: 'ollama-generate',
  errorShape: ollamaErrorShape,
  parse: (body, context) =>
    wireRequestOf(
      'generate',
      ollamaGenerateToNative(validate(ollamaGenerateRequestSchema, body), translation(context)),
    ),
  answer: answerOf,
};
