// Narrow zod schemas for native-format client bodies (docs/principles.md "Validated in, typed out"). Unknown top-level
// fields are passed through (z.looseObject) so that a newer client's extra parameters reach the backend, which decides
// what it can honour; block types we do not know are refused with a 400 naming the field.

import { z } from 'zod';
import { between, positiveInt } from './validate.js';

const cacheControl = z.unknown().optional();

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl });

const imageSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string() }),
]);

const imageBlock = z.looseObject({ type: z.literal('image'), source: imageSource, cache_control: cacheControl });

const documentSource = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('url'), url: z.string() }),
  z.looseObject({ type: z.literal('text'), media_type: z.string(), data: z.string() }),
  z.looseObject({ type: z.literal('content'), content: z.union([z.string(), z.array(z.unknown())]) }),
]);

/** A document (docs/interface.md "Documents"); what its source may hold is checked by formats/documents.ts. */
const documentBlock = z.looseObject({
  type: z.literal('document'),
  source: documentSource,
  title: z.string().nullish(),
  context: z.string().nullish(),
  citations: z.looseObject({ enabled: z.boolean() }).optional(),
  cache_control: cacheControl,
});

const toolUseBlock = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.unknown(),
});

const toolResultBlock = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock]))]).optional(),
  is_error: z.boolean().optional(),
});

const thinkingBlock = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string().optional(),
});
const redactedThinkingBlock = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

const nativeContentBlockSchema = z.discriminatedUnion('type', [
  textBlock,
  imageBlock,
  documentBlock,
  toolUseBlock,
  toolResultBlock,
  thinkingBlock,
  redactedThinkingBlock,
]);

const content = z.union([z.string(), z.array(nativeContentBlockSchema)]);

const system = z.union([z.string(), z.array(textBlock)]);

const tool = z.looseObject({
  name: z.string().min(1, 'must not be empty'),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
});

const toolChoice = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('none') }),
]);

/** POST /v1/messages (and /cc/, /api/ when validated): the native message request (docs/interface.md "Endpoints"). */
export const nativeMessagesRequestSchema = z.looseObject({
  model: z.string().min(1, 'must not be empty'),
  messages: z
    .array(z.looseObject({ role: z.enum(['user', 'assistant']), content }))
    .min(1, 'must contain at least one message'),
  system: system.optional(),
  max_tokens: positiveInt(),
  temperature: between(0, 1).optional(), // docs/interface.md "Limits": native temperature 0.0 to 1.0
  top_p: between(0, 1).optional(),
  top_k: z.number().int('must be an integer').min(0, 'must be at least 0').optional(),
  stop_sequences: z.array(z.string()).optional(),
  stream: z.boolean().optional(),
  tools: z.array(tool).optional(),
  tool_choice: toolChoice.optional(),
  metadata: z.looseObject({ user_id: z.string().optional() }).optional(),
});

export type NativeMessagesRequestBody = z.output<typeof nativeMessagesRequestSchema>;

/**
 * POST /v1/chat/completions: the native chat-completion request (docs/interface.md "Native chat request"). Messages
 * carry role and content (the interface's content is a string; blocks are accepted too). A `system` role message is
 * accepted and folded into the system prompt by formats/native-chat/native-chat-request-to-native.ts, because many
 * clients send it that way.
 */
export const nativeChatRequestSchema = z.looseObject({
  model: z.string().min(1, 'must not be empty'),
  messages: z
    .array(z.looseObject({ role: z.enum(['user', 'assistant', 'system']), content }))
    .min(1, 'must contain at least one message'),
  max_tokens: positiveInt(),
  temperature: between(0, 1).optional(), // docs/interface.md "Native chat request": 0.0 to 1.0
  top_p: between(0, 1).optional(),
  top_k: z.number().int('must be an integer').min(0, 'must be at least 0').optional(),
  stream: z.boolean().optional(),
  stop_sequences: z.array(z.string()).optional(),
  system: z.string().optional(),
});

export type NativeChatRequestBody = z.output<typeof nativeChatRequestSchema>;
