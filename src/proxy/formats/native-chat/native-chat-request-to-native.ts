// The native chat-completion request (SPEC.md §2.1, POST /v1/chat/completions) -> the native request. The fields
// already have native names and ranges; only the shape differs: `system` role messages, which many clients send
// instead of the `system` field, are folded into the system prompt (after the field's own text), and consecutive
// messages of one role are merged because the native format wants them alternating.
//
// parseNativeChatRequest validates the body first. The one change from plain validation: a body without max_tokens
// (required by SPEC.md §2.1) is most often an OpenAI-format client pointed at /v1 out of habit (PEERS.md "First
// run"), so that 400 says where such clients belong (/compat/v1, where max_tokens is optional, §2.2).

import { invalidField } from '../../errors.js';
import { nativeChatRequestSchema, type NativeChatRequestBody } from '../native-schemas.js';
import { validate } from '../validate.js';
import type { NativeContentBlock, NativeMessageParam, NativeMessagesRequest } from '../native.js';

function blocksOf(content: string | NativeContentBlock[]): NativeContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function textOf(content: string | NativeContentBlock[]): string {
  return typeof content === 'string' ? content : content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** The 400 for a native chat request without max_tokens, pointing OpenAI-format clients to /compat/v1. */
function missingMaxTokensError() {
  return invalidField(
    'max_tokens',
    'is required',
    'Invalid request: max_tokens is required on /v1/chat/completions (the native chat format, docs/interface.md "Native chat request"). ' +
      'OpenAI-format clients and SDKs should use the base URL /compat/v1 instead, where max_tokens is optional.',
  );
}

/** Validates a POST /v1/chat/completions body (SPEC.md §2.1); a missing max_tokens gets the hint above. */
export function parseNativeChatRequest(body: unknown): NativeChatRequestBody {
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) {
    const maxTokens = (body as Record<string, unknown>).max_tokens;
    if (maxTokens === undefined || maxTokens === null) throw missingMaxTokensError();
  }
  return validate(nativeChatRequestSchema, body);
}

export function nativeChatRequestToNative(body: NativeChatRequestBody): NativeMessagesRequest {
  const system: string[] = body.system ? [body.system] : [];
  const messages: NativeMessageParam[] = [];
  for (const message of body.messages) {
    if (message.role === 'system') {
      system.push(textOf(message.content));
      continue;
    }
    const last = messages.at(-1);
    if (last && last.role === message.role) {
      last.content = [...blocksOf(last.content), ...blocksOf(message.content)];
    } else {
      messages.push({ role: message.role, content: message.content });
    }
  }
  if (messages.length === 0) throw invalidField('messages', 'must contain at least one user or assistant message');

  const request: NativeMessagesRequest = { model: body.model, messages, max_tokens: body.max_tokens };
  const systemText = system.filter((s) => s !== '').join('\n\n');
  if (systemText !== '') request.system = systemText;
  if (body.temperature !== undefined) request.temperature = body.temperature;
  if (body.top_p !== undefined) request.top_p = body.top_p;
  if (body.top_k !== undefined) request.top_k = body.top_k;
  if (body.stop_sequences !== undefined) request.stop_sequences = body.stop_sequences;
  if (body.stream !== undefined) request.stream = body.stream;
  return request;
}
