// The Responses API request (what Codex, the OpenAI SDK's responses.create and the AI SDK's default OpenAI provider
// send), as narrow zod schemas (docs/principles.md "Validated in, typed out"), and the hand-written types of what we
// send back. Optional fields accept null as well as absence (clients serialise unset options as null). Items of `input`
// and `tools` are validated one by one after their `type` is read (request-to-native.ts), so a bad item's 400 names its
// own field (`input.3.call_id`), and an item or tool kind the assistant cannot serve is left out by name, not refused.

import { z } from 'zod';
import { between, positiveInt } from '../validate.js';

// ---- request --------------------------------------------------------------------------------------------------

const text = z.looseObject({ type: z.enum(['input_text', 'output_text', 'text']), text: z.string() });
const refusal = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const image = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().nullish(),
  file_id: z.string().nullish(),
  detail: z.string().nullish(),
});
const file = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().nullish(),
  file_url: z.string().nullish(),
  file_id: z.string().nullish(),
  filename: z.string().nullish(),
});

const responsesContentPart = z.discriminatedUnion('type', [text, refusal, image, file]);
export type ResponsesContentPart = z.output<typeof responsesContentPart>;

export const responsesMessageItem = z.looseObject({
  type: z.literal('message').nullish(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(responsesContentPart)]),
});

export const responsesFunctionCallItem = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1, 'must not be empty'),
  name: z.string().min(1, 'must not be empty'),
  arguments: z.string(),
});

export const responsesCustomToolCallItem = z.looseObject({
  type: z.literal('custom_tool_call'),
  call_id: z.string().min(1, 'must not be empty'),
  name: z.string().min(1, 'must not be empty'),
  input: z.string(),
});

/** A tool's output: text, or a list of text and image parts. */
const toolOutput = z.union([z.string(), z.array(responsesContentPart)]);

export const responsesFunctionCallOutputItem = z.looseObject({
  type: z.enum(['function_call_output', 'custom_tool_call_output']),
  call_id: z.string().min(1, 'must not be empty'),
  output: toolOutput,
});

export const responsesReasoningItem = z.looseObject({
  type: z.literal('reasoning'),
  summary: z.array(z.looseObject({ text: z.string() })).nullish(),
  content: z.array(z.looseObject({ text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

export const responsesFunctionTool = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1, 'must not be empty'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

/** A freeform tool (Codex's apply_patch): its input is text, optionally in a grammar. */
export const responsesCustomTool = z.looseObject({
  type: z.literal('custom'),
  name: z.string().min(1, 'must not be empty'),
  description: z.string().nullish(),
  format: z
    .union([
      z.looseObject({ type: z.literal('text') }),
      z.looseObject({ type: z.literal('grammar'), syntax: z.string(), definition: z.string() }),
    ])
    .nullish(),
});

const toolChoice = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.enum(['function', 'custom']), name: z.string().min(1, 'must not be empty') }),
  z.looseObject({ type: z.string() }),
]);

const textFormat = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().nullish(),
    description: z.string().nullish(),
    schema: z.record(z.string(), z.unknown()).nullish(),
    strict: z.boolean().nullish(),
  }),
]);

export const responsesRequestSchema = z.looseObject({
  model: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty'),
  input: z.union([z.string(), z.array(z.unknown())], {
    error: (i) => (i.input === undefined ? 'is required' : 'must be a string or an array of items'),
  }),
  instructions: z.string().nullish(),
  tools: z.array(z.looseObject({ type: z.string() })).nullish(),
  tool_choice: toolChoice.nullish(),
  parallel_tool_calls: z.boolean().nullish(),
  max_output_tokens: positiveInt().nullish(),
  temperature: between(0, 2).nullish(),
  top_p: between(0, 1).nullish(),
  stream: z.boolean().nullish(),
  store: z.boolean().nullish(),
  previous_response_id: z.string().nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish(), summary: z.string().nullish() }).nullish(),
  text: z.looseObject({ format: textFormat.nullish(), verbosity: z.string().nullish() }).nullish(),
  include: z.array(z.string()).nullish(),
});
export type ResponsesRequest = z.output<typeof responsesRequestSchema>;

// ---- answer ---------------------------------------------------------------------------------------------------

interface ResponsesOutputText {
  type: 'output_text';
  text: string;
  annotations: unknown[];
  logprobs: unknown[];
}

export type ResponsesOutputItem =
  | {
      type: 'message';
      id: string;
      status: 'in_progress' | 'completed' | 'incomplete';
      role: 'assistant';
      content: ResponsesOutputText[];
    }
  | {
      type: 'reasoning';
      id: string;
      summary: Array<{ type: 'summary_text'; text: string }>;
      encrypted_content?: string;
    }
  | {
      type: 'function_call';
      id: string;
      status: 'in_progress' | 'completed';
      call_id: string;
      name: string;
      arguments: string;
    }
  | {
      /** Stands for the conversation it replaced (docs/compaction.md): sealed, opaque to the client. */
      type: 'compaction';
      id: string;
      encrypted_content: string;
    }
  | {
      type: 'custom_tool_call';
      id: string;
      status: 'in_progress' | 'completed';
      call_id: string;
      name: string;
      input: string;
    };

export interface ResponsesUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  /** Present only when known: the provider counts thinking inside output_tokens, never apart. */
  output_tokens_details?: { reasoning_tokens: number };
  total_tokens: number;
}

export type ResponsesStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponsesResponse {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponsesStatus;
  model: string;
  output: ResponsesOutputItem[];
  usage: ResponsesUsage | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: string } | null;
  parallel_tool_calls: boolean;
  tool_choice: unknown;
  tools: unknown[];
  store: boolean;
  previous_response_id: string | null;
  metadata: Record<string, string>;
}

/** How a compaction is answered (compaction-answer.ts), set on the answer options by the compaction step. */
export interface CompactionAnswer {
  /** Seals the summary the model wrote (responses/compaction/seal.ts), as the item's encrypted_content. */
  seal(summary: string, model: string): string;
  /** The compact endpoint (POST …/responses/compact): its answer is the user messages, then the item. */
  endpoint?: { userMessages: unknown[] };
}
