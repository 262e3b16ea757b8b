// The response API (docs/interface.md "Response-API request", /respapi/; docs/respapi-mode.md): the client's request
// schema, and the types of the upstream's answer the proxy reads; kept narrow and loose: unknown fields pass through.

import { z } from 'zod';
import { positiveInt } from '../formats/validate.js';

// The body a client sends (docs/interface.md "Response-API request"): the chat form (`messages`) or the response API's
// own form (`input`). Validated here, translated by respapi/respapi-request-to-upstream.ts. Loose: fields not
// named pass through.
const textPart = z.looseObject({ type: z.enum(['text', 'input_text', 'output_text']), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.union([z.string().min(1), z.looseObject({ url: z.string().min(1, 'must not be empty') })]),
});
const respapiChatMessageSchema = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant']),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, imagePart]))]),
});
export type RespapiChatMessage = z.output<typeof respapiChatMessageSchema>;

export const respapiRequestSchema = z.looseObject({
  model: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .min(1, 'must not be empty'),
  messages: z.array(respapiChatMessageSchema).min(1, 'must have at least 1 items').optional(),
  input: z
    .union([z.string().min(1, 'must not be empty'), z.array(z.looseObject({})).min(1, 'must have at least 1 items')])
    .optional(),
  instructions: z.string().nullish(),
  temperature: z.number().min(0, 'must be between 0 and 2').max(2, 'must be between 0 and 2').nullish(),
  max_tokens: positiveInt().nullish(),
  stream: z.boolean().nullish(),
});

interface RespapiOutputText {
  type: 'output_text';
  text: string;
}

interface RespapiUsage {
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
