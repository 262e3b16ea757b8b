// The compatible (widely used chat-completion) format: a narrow zod schema for incoming requests
// (docs/interface.md "Compatible chat request") and hand-written types for what we send back ("Chat completion",
// "Compatible stream"). Optional fields accept null as well as absence, because common clients serialise unset options
// as null.

import { z } from 'zod';
import { between, positiveInt } from '../validate.js';
import { reasoningEfforts } from '../../profile.js';

// ---- request --------------------------------------------------------------------------------------------------

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const imageUrlPart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1, 'must not be empty'), detail: z.string().nullish() }),
});
/** A file (the openai SDK and the AI SDK send a PDF this way): its data as a data URL, or an uploaded file's id. */
const filePart = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({
    filename: z.string().nullish(),
    file_data: z.string().nullish(),
    file_id: z.string().nullish(),
  }),
});
/** Assistant messages replayed by clients may carry refusal parts. */
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const textContent = z.union([z.string(), z.array(textPart)]);

const compatToolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string() }),
});

const systemMessage = z.looseObject({ role: z.literal('system'), content: textContent, name: z.string().nullish() });
const developerMessage = z.looseObject({
  role: z.literal('developer'),
  content: textContent,
  name: z.string().nullish(),
});
const userMessage = z.looseObject({
  role: z.literal('user'),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, imageUrlPart, filePart]))]),
  name: z.string().nullish(),
});
const assistantMessage = z.looseObject({
  role: z.literal('assistant'),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, refusalPart]))]).nullish(),
  tool_calls: z.array(compatToolCallSchema).nullish(),
  refusal: z.string().nullish(),
  name: z.string().nullish(),
});
const toolMessage = z.looseObject({ role: z.literal('tool'), content: textContent, tool_call_id: z.string() });

const compatMessageSchema = z.discriminatedUnion('role', [
  systemMessage,
  developerMessage,
  userMessage,
  assistantMessage,
  toolMessage,
]);

const compatTool = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().min(1, 'must not be empty'),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
});

const compatToolChoice = z.union([
  z.enum(['auto', 'none', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string() }) }),
]);

const responseFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string(),
      description: z.string().nullish(),
      schema: z.record(z.string(), z.unknown()).nullish(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

/** /compat/v1/chat/completions and the other compatible chat routes (docs/interface.md "Compatible chat request"). */
export const compatChatRequestSchema = z.looseObject({
  model: z.string().min(1, 'must not be empty'),
  messages: z.array(compatMessageSchema).min(1, 'must contain at least one message'),
  max_tokens: positiveInt().nullish(),
  max_completion_tokens: positiveInt().nullish(),
  temperature: between(0, 2).nullish(), // docs/interface.md "Limits": 0.0 to 2.0 accepted, clamped when forwarded
  top_p: between(0, 1).nullish(),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  presence_penalty: between(-2, 2).nullish(), // docs/interface.md "Parameter translation": accepted and ignored
  frequency_penalty: between(-2, 2).nullish(),
  user: z.string().nullish(),
  // One choice per request is all the provider gives; more would be a silent lie, so it is a 400.
  n: z
    .number()
    .int('must be an integer')
    .refine((n) => n === 1, 'must be 1 (only one choice is supported)')
    .nullish(),
  tools: z.array(compatTool).nullish(),
  tool_choice: compatToolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  response_format: responseFormat.nullish(),
  // An effort intent (formats/compat/compat-request-to-native.ts): direct mode fits it to the model (an effort level,
  // or a budget on a model that takes only one: models/fit-to-model.ts); tool mode gives the CLI its --effort.
  reasoning_effort: z.enum(reasoningEfforts).nullish(),
  // Accepted and not forwarded: the provider has no equivalent.
  seed: z.number().int('must be an integer').nullish(),
  logprobs: z.boolean().nullish(),
  top_logprobs: z.number().int('must be an integer').nullish(),
  logit_bias: z.record(z.string(), z.number()).nullish(),
});

export type CompatChatRequest = z.output<typeof compatChatRequestSchema>;
export type CompatMessage = z.output<typeof compatMessageSchema>;

// ---- response -------------------------------------------------------------------------------------------------

/** `function_call` only answers a request in the legacy `functions` form (formats/compat/completion-to-legacy-function-call.ts). */
export type CompatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter' | 'function_call';

export interface CompatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface CompatUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Tokens of the prompt read from the provider's prompt cache. */
  prompt_tokens_details?: { cached_tokens: number };
}

/** docs/interface.md "Chat completion": the non-streaming chat completion, used by both chat-completion endpoints. */
export interface CompatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: {
      role: 'assistant';
      content: string | null;
      tool_calls?: CompatToolCall[];
      function_call?: { name: string; arguments: string };
      refusal: null;
    };
    finish_reason: CompatFinishReason | null;
    logprobs: null;
  }>;
  usage: CompatUsage;
}

/** Streamed tool calls always carry `index` (docs/lessons.md "Streams and clients": some clients drop them without). */
interface CompatToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function: { name?: string; arguments: string };
}

export interface CompatChunkDelta {
  role?: 'assistant';
  content?: string | null;
  tool_calls?: CompatToolCallDelta[];
  function_call?: { name?: string; arguments: string };
}

export interface CompatChunkChoice {
  index: number;
  delta: CompatChunkDelta;
  finish_reason: CompatFinishReason | null;
  logprobs: null;
}

/** One streamed chunk (docs/interface.md "Compatible stream"). The usage chunk (include_usage) has `choices: []`. */
export interface CompatChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: CompatChunkChoice[];
  usage?: CompatUsage | null;
}
