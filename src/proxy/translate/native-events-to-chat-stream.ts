// Native stream events -> the native chat-completion stream (SPEC.md §6.2, POST /v1/chat/completions with stream
// true): message_start, text deltas with their block index, and message_delta with the stop reason and output
// tokens. Other event types are not part of that stream and are dropped (§6.2: "not shown"). The server adds the
// SSE framing and [DONE]. step/finish as in STYLE.md habit 3.

import { ProxyError } from '../errors.js';
import type { NativeChatStreamEvent, NativeStreamEvent } from '../formats/native.js';
import { mapNativeError } from './map-native-error.js';

export interface NativeChatStreamState {
  /** The model id to show the client, replacing the provider's id in message_start. */
  readonly model?: string;
  stopped: boolean;
  error?: ProxyError;
}

export function createNativeChatStreamState(options: { model?: string } = {}): NativeChatStreamState {
  return { model: options.model, stopped: false };
}

export function stepNativeChatStream(event: NativeStreamEvent, state: NativeChatStreamState): NativeChatStreamEvent[] {
  if (state.stopped || state.error) return [];
  switch (event.type) {
    case 'message_start':
      return [{ type: 'message_start', message: { ...event.message, model: state.model ?? event.message.model } }];
    case 'content_block_delta':
      return event.delta.type === 'text_delta'
        ? [{ type: 'content_block_delta', index: event.index, delta: { type: 'text_delta', text: event.delta.text } }]
        : [];
    case 'message_delta':
      state.stopped = true;
      return [
        {
          type: 'message_delta',
          delta: { stop_reason: event.delta.stop_reason },
          usage: { output_tokens: event.usage.output_tokens },
        },
      ];
    case 'error':
      state.error = mapNativeError(event.error);
      return [];
    default:
      return [];
  }
}

/** A stream that ended without message_delta is reported, for the route to put into the stream. */
export function finishNativeChatStream(state: NativeChatStreamState): { events: NativeChatStreamEvent[]; error?: ProxyError } {
  if (state.error) return { events: [], error: state.error };
  if (!state.stopped) return { events: [], error: new ProxyError('upstream', 'The provider stream ended without a stop reason') };
  return { events: [] };
}
