// The native chat-completion request (SPEC.md §2.1, POST /v1/chat/completions) -> the native request. The fields
// already have native names and ranges; only the shape differs: `system` role messages, which many clients send
// instead of the `system` field, are folded into the system prompt (after the field's own text), and consecutive
// messages of one role are merged because the native format wants them alternating.

import { invalidField } from '../errors.js';
import type { NativeChatRequestBody } from '../formats/native-schemas.js';
import type { NativeContentBlock, NativeMessageParam, NativeMessagesRequest } from '../formats/native.js';

function blocksOf(content: string | NativeContentBlock[]): NativeContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

function textOf(content: string | NativeContentBlock[]): string {
  return typeof content === 'string'
    ? content
    : content.map((b) => (b.type === 'text' ? b.text : '')).join('');
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
