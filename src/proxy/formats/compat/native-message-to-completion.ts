// A whole native message -> the compatible chat completion (docs/interface.md "Chat completion"). Text blocks are
// joined; tool_use blocks become `tool_calls`, and a finish_reason of tool_calls always comes with that array
// (docs/lessons.md "Streams and clients": a peer left it out and broke automation tools). Thinking blocks have no place
// in the completion and are left out.

import type { CompatCompletion, CompatToolCall } from './schema.js';
import type { NativeMessage } from '../native.js';
import { finishReasonWithToolCalls } from '../map-stop-reason.js';
import { mapUsage } from '../map-usage.js';

interface CompletionMeta {
  /** Completion id chosen by the caller (e.g. chatcmpl-<random>). */
  id: string;
  /** The model id to show the client (the neutral id it asked for). */
  model: string;
  /** Unix time in seconds. */
  created: number;
}

export function nativeMessageToCompletion(message: NativeMessage, meta: CompletionMeta): CompatCompletion {
  const text = message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
  const toolCalls: CompatToolCall[] = message.content.flatMap((b) =>
    b.type === 'tool_use'
      ? [{ id: b.id, type: 'function' as const, function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }]
      : [],
  );
  const finishReason =
    message.stop_reason === null ? null : finishReasonWithToolCalls(message.stop_reason, toolCalls.length);

  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          // The compatible format uses null content for a message that only calls tools.
          content: text === '' && toolCalls.length > 0 ? null : text,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
          refusal: null,
        },
        finish_reason: finishReason,
        logprobs: null,
      },
    ],
    usage: mapUsage(message.usage),
  };
}
