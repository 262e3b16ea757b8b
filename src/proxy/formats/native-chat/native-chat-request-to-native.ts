// The native chat-completion request (docs/interface.md "Native chat request", POST /v1/chat/completions) -> the native
// request. The fields already have native names and ranges; only the shape differs: `system` role messages, which many
// clients send instead of the `system` field, are folded into the system prompt (after the field's own text), and
// consecutive messages of one role are merged because the native format wants them alternating.
//
// parseNativeChatRequest validates the body first. The one change from plain validation: a body without max_tokens
// (required there) is most often an OpenAI-format client pointed at /v1 out of habit
// (docs/lessons.md "First run"), so that 400 says where such clients belong (/compat/v1, where it is optional).

import { invalidField } from '../../errors.js';
import { nativeChatRequestSchema, type NativeChatRequestBody } from '../native-schemas.js';
import { validate } from '../validate.js';
import type { NativeMessagesRequest } from '../native.js';
import { ConversationBuilder, textOf } from '../conversation-builder.js';

/** The 400 for a native chat request without max_tokens, pointing OpenAI-format clients to /compat/v1. */
function missingMaxTokensError() {
  return invalidField(
    'max_tokens',
    'is required',
    'Invalid request: max_tokens is required on /v1/chat/completions (the native chat format, docs/interface.md "Native chat request"). ' +
      'OpenAI-format clients and SDKs should use the base URL /compat/v1 instead, where max_tokens is optional.',
  );
}

/** Validates a /v1/chat/completions body (docs/interface.md "Native chat request"), with the hint above. */
export function parseNativeChatRequest(body: unknown): NativeChatRequestBody {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const maxTokens = (body as Record<string, unknown>).max_tokens;
    if (maxTokens === undefined || maxTokens === null) throw missingMaxTokensError();
  }
  return validate(nativeChatRequestSchema, body);
}

export function nativeChatRequestToNative(body: NativeChatRequestBody): NativeMessagesRequest {
  const conversation = new ConversationBuilder();
  conversation.addSystem(body.system);
  for (const message of body.messages) {
    if (message.role === 'system') conversation.addSystem(textOf(message.content));
    // Messages are forwarded as they are (an empty one too); only consecutive ones of a role are merged.
    else conversation.append(message.role, message.content);
  }
  const messages = conversation.nonEmptyMessages();

  const request: NativeMessagesRequest = { model: body.model, messages, max_tokens: body.max_tokens };
  const system = conversation.systemText();
  if (system !== undefined) request.system = system;
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.top_p = body.top_p;
  if (body.top_k !== undefined) request.top_k = body.top_k;
  if (body.stop_sequences !== undefined) request.stop_sequences = body.stop_sequences;
  if (body.stream !== undefined) request.stream = body.stream;
  return request;
}
