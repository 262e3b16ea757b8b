// Native stop_reason -> compatible finish_reason (docs/interface.md "Chat completion", "Compatible stream"). A table,
// not a chain of ifs, so a reader sees every case at once (docs/principles.md "Pure translation").

import type { CompatFinishReason } from './compat/schema.js';
import type { NativeStopReason } from './native.js';

const finishReasonOfStopReason = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  // The provider paused a long server-side turn; the client sees an ordinary end of its answer.
  pause_turn: 'stop',
  refusal: 'content_filter',
} as const satisfies Record<string, CompatFinishReason>;

/** null (no reason yet) stays null; a reason the provider adds later maps to 'stop' rather than breaking a client. */
export function mapStopReason(reason: NativeStopReason | null | undefined): CompatFinishReason | null {
  if (reason === null || reason === undefined) return null;
  return Object.hasOwn(finishReasonOfStopReason, reason)
    ? finishReasonOfStopReason[reason as keyof typeof finishReasonOfStopReason]
    : 'stop';
}

/**
 * The finish_reason a compatible client sees, given the tool calls it was actually sent. Streamed chunks and the
 * completion JSON both go through here, so the same events give the same reason either way: never `tool_calls`
 * without calls (docs/lessons.md "Streams and clients"), and calls are never hidden behind `stop`.
 */
export function finishReasonWithToolCalls(
  reason: NativeStopReason | null | undefined,
  toolCalls: number,
): CompatFinishReason {
  const mapped = mapStopReason(reason) ?? 'stop';
  if (mapped === 'tool_calls' && toolCalls === 0) return 'stop';
  if (mapped === 'stop' && toolCalls > 0) return 'tool_calls';
  return mapped;
}
