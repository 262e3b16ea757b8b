// The Ollama API's request bodies (docs/ollama.md), as narrow zod schemas
// (docs/principles.md "Validated in, typed out"), and the answer shapes as hand-written types. Only what the proxy
// reads is checked; the rest of a body passes (loose objects) and is reported as ignored by the translation, never
// silently dropped.

import { z } from 'zod';

/** Ollama's `options`: the sampling settings and limits of one request. Read: num_predict, temperature, top_p,
 * top_k, stop; everything else (num_ctx, seed, mirostat ...) is a local runtime's knob and is named as ignored. */
const ollamaOptionsSchema = z.looseObject({
  num_predict: z.number().int('must be an integer').nullish(),
  temperature: z.number().min(0, 'must be at least 0').nullish(),
  top_p: z.number().min(0, 'must be at least 0').max(1, 'must be at most 1').nullish(),
  top_k: z.number().int('must be an integer').min(0, 'must be at least 0').nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
});

const toolCallSchema = z.looseObject({
  /** Not in Ollama's own answers; the proxy adds it and reads it back, so a tool result finds its call. */
  id: z.string().min(1).optional(),
  function: z.looseObject({
    name: z.string().min(1),
    // Ollama sends an object; some clients send the JSON text, as the compatible format does.
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).nullish(),
  }),
});

const ollamaMessageSchema = z.looseObject({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string().nullish(),
  /** Base64 images without a media type (the type is read from the bytes). */
  images: z.array(z.string()).nullish(),
  thinking: z.string().nullish(),
  tool_calls: z.array(toolCallSchema).nullish(),
  /** On a tool message: the function whose result this is. */
  tool_name: z.string().nullish(),
  /** On a tool message: the id of the call it answers, when the client kept it. */
  tool_call_id: z.string().nullish(),
});

const ollamaToolSchema = z.looseObject({
  type: z.string().optional(),
  function: z.looseObject({
    name: z.string().min(1),
    description: z.string().nullish(),
    parameters: z.record(z.string(), z.unknown()).nullish(),
  }),
});

const thinkSchema = z.union([z.boolean(), z.enum(['low', 'medium', 'high'])]).nullish();
/** `format`: "json" or a JSON schema. */
const formatSchema = z.union([z.literal('json'), z.literal(''), z.record(z.string(), z.unknown())]).nullish();

/** A model name: the proxy's ids, with an optional Ollama tag (`:latest`). */
const modelSchema = z.string().min(1, 'is required');

export const ollamaChatRequestSchema = z.looseObject({
  model: modelSchema,
  messages: z.array(ollamaMessageSchema).nullish(),
  stream: z.boolean().nullish(),
  format: formatSchema,
  tools: z.array(ollamaToolSchema).nullish(),
  think: thinkSchema,
  options: ollamaOptionsSchema.nullish(),
  keep_alive: z.union([z.string(), z.number()]).nullish(),
});

export const ollamaGenerateRequestSchema = z.looseObject({
  model: modelSchema,
  prompt: z.string().nullish(),
  suffix: z.string().nullish(),
  system: z.string().nullish(),
  images: z.array(z.string()).nullish(),
  stream: z.boolean().nullish(),
  format: formatSchema,
  think: thinkSchema,
  raw: z.boolean().nullish(),
  template: z.string().nullish(),
  context: z.array(z.number()).nullish(),
  options: ollamaOptionsSchema.nullish(),
  keep_alive: z.union([z.string(), z.number()]).nullish(),
});

/** /api/show, /api/delete, /api/pull ...: `model`, or the older `name`. */
export const ollamaModelBodySchema = z.looseObject({ model: z.string().nullish(), name: z.string().nullish() });

export type OllamaChatRequest = z.output<typeof ollamaChatRequestSchema>;
export type OllamaGenerateRequest = z.output<typeof ollamaGenerateRequestSchema>;
export type OllamaMessage = z.output<typeof ollamaMessageSchema>;
export type OllamaOptions = z.output<typeof ollamaOptionsSchema>;

// ---- answers ---------------------------------------------------------------------------------------------------

export interface OllamaToolCall {
  id: string;
  function: { index: number; name: string; arguments: Record<string, unknown> };
}

export interface OllamaAnswerMessage {
  role: 'assistant';
  content: string;
  thinking?: string;
  tool_calls?: OllamaToolCall[];
}

/** The figures of a finished answer. Durations are nanoseconds, as Ollama's; token counts are the provider's. */
export interface OllamaDoneFields {
  done: true;
  done_reason: string;
  total_duration: number;
  load_duration: number;
  prompt_eval_count: number;
  prompt_eval_duration: number;
  eval_count: number;
  eval_duration: number;
}

export type OllamaChatLine =
  | { model: string; created_at: string; message: OllamaAnswerMessage; done: false }
  | ({ model: string; created_at: string; message: OllamaAnswerMessage } & OllamaDoneFields);

export type OllamaGenerateLine =
  | { model: string; created_at: string; response: string; thinking?: string; done: false }
  | ({ model: string; created_at: string; response: string; thinking?: string } & OllamaDoneFields);
