// The response API (SPEC.md §2.7, /respapi/): types for the reverse proxy
// (docs/respapi-mode.md); kept narrow and loose: unknown fields pass through.

import { z } from 'zod';

export type RespapiRole = 'user' | 'assistant' | 'system' | 'developer';

export interface RespapiInputText {
  type: 'input_text';
  text: string;
}

export interface RespapiOutputText {
  type: 'output_text';
  text: string;
}

export interface RespapiMessageItem {
  type: 'message';
  role: RespapiRole;
  content: string | Array<RespapiInputText | RespapiOutputText>;
}

export type RespapiInputItem = RespapiMessageItem;

export interface RespapiRequest {
  model: string;
  input: string | RespapiInputItem[];
  instructions?: string;
  stream?: boolean;
  store?: boolean;
  [extra: string]: unknown;
}

/** SPEC.md §2.7 as documented: a chat-like body with `messages` (the upstream wants `input`). */
export const respapiRequestSchema = z.looseObject({
  model: z.string().min(1, 'must not be empty'),
  messages: z.array(z.looseObject({ role: z.string(), content: z.unknown() })).optional(),
  input: z.unknown().optional(),
  instructions: z.string().optional(),
  temperature: z.number().optional(),
  max_tokens: z.number().int('must be an integer').optional(),
  stream: z.boolean().optional(),
  store: z.boolean().optional(),
});

export type RespapiRequestBody = z.output<typeof respapiRequestSchema>;

export interface RespapiUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  input_tokens_details?: { cached_tokens: number };
}

export interface RespapiResponse {
  id: string;
  object: 'response';
  created_at: number;
  model: string;
  status: 'in_progress' | 'completed' | 'failed' | 'incomplete';
  output: Array<{ type: 'message'; id: string; role: 'assistant'; content: RespapiOutputText[] } | { type: string }>;
  usage?: RespapiUsage | null;
}

export type RespapiStreamEvent =
  | { type: 'response.created'; response: RespapiResponse }
  | { type: 'response.output_text.delta'; item_id: string; output_index: number; content_index: number; delta: string }
  | { type: 'response.completed'; response: RespapiResponse }
  | { type: 'response.failed'; response: RespapiResponse };
// Other upstream event types (output_item.added, content_part.done, ...) are forwarded untouched and not typed here.
