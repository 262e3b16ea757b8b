// Native stream events -> the native chat-completion stream (docs/interface.md "Native chat-completion stream", POST
// /v1/chat/completions with stream true): message_start, text deltas with their block index, and message_delta with the
// stop reason and output tokens. Other event types are not part of that stream and are dropped. The server adds the
// SSE framing and [DONE]. step/finish as in docs/principles.md "Step and finish".
//
// Two kinds of client read this route (docs/http.md "POST /v1/chat/completions: one stream, two readers"): clients
// written for that stream, which switch on `type`, and OpenAI-format clients pointed at `/v1` out of habit
// (docs/lessons.md "First run"), which read `choices[0].delta` and would otherwise get empty text and no error. So
// every event keeps its native fields exactly and also carries the compatible chunk fields ("Compatible stream": id,
// object, created, model, choices). The two sets of names do not collide: the native event puts `delta` and `index` at
// the top level, the chunk puts them inside `choices`. The only shared name is `usage` on message_delta, where the
// compatible token counts sit beside `output_tokens`.

import { ProxyError } from '../../errors.js';
import type { CompatChunkChoice, CompatUsage } from '../compat/schema.js';
import type { NativeChatStreamEvent, NativeStreamEvent, NativeUsage } from '../native.js';
import { mapNativeError } from '../map-native-error.js';
import { mapStopReason } from '../map-stop-reason.js';
import { mapUsage } from '../map-usage.js';

/** The compatible chunk fields (docs/interface.md "Compatible stream") every event also carries. */
interface ChatChunkFields {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: CompatChunkChoice[];
}

/** One event of the stream: a native chat-completion event plus the compatible chunk fields. */
type NativeChatStreamOutput =
  | (Extract<NativeChatStreamEvent, { type: 'message_start' }> & ChatChunkFields)
  | (Extract<NativeChatStreamEvent, { type: 'content_block_delta' }> & ChatChunkFields)
  | (Omit<Extract<NativeChatStreamEvent, { type: 'message_delta' }>, 'usage'> &
      ChatChunkFields & { usage: { output_tokens: number } & CompatUsage });

/** What the route fixes for the whole answer (chat/answer-chat.ts). */
export interface NativeChatStreamOptions {
  /** The model id shown to the client. */
  model: string;
  /** Completion id, the same on every event. */
  id: string;
  /** Unix time in seconds, the same on every event. */
  created: number;
}

interface NativeChatStreamState {
  readonly created: number;
  id: string;
  model: string;
  usage: NativeUsage;
  started: boolean;
  stopped: boolean;
  error?: ProxyError;
}

export function createNativeChatStreamState(options: NativeChatStreamOptions): NativeChatStreamState {
  return {
    created: options.created,
    id: options.id,
    model: options.model,
    usage: { input_tokens: 0, output_tokens: 0 },
    started: false,
    stopped: false,
  };
}

function fields(state: NativeChatStreamState, choice: Omit<CompatChunkChoice, 'index' | 'logprobs'>): ChatChunkFields {
  return {
    id: state.id,
    object: 'chat.completion.chunk',
    created: state.created,
    model: state.model,
    choices: [{ index: 0, ...choice, logprobs: null }],
  };
}

export function stepNativeChatStream(event: NativeStreamEvent, state: NativeChatStreamState): NativeChatStreamOutput[] {
  if (state.stopped || state.error) return [];
  switch (event.type) {
    case 'message_start': {
      state.started = true;
      state.usage = { ...event.message.usage };
      return [
        {
          type: 'message_start',
          message: { ...event.message, model: state.model },
          ...fields(state, { delta: { role: 'assistant', content: '' }, finish_reason: null }),
        },
      ];
    }
    case 'content_block_delta':
      if (event.delta.type !== 'text_delta' || !state.started) return [];
      return [
        {
          type: 'content_block_delta',
          index: event.index,
          delta: { type: 'text_delta', text: event.delta.text },
          ...fields(state, { delta: { content: event.delta.text }, finish_reason: null }),
        },
      ];
    case 'message_delta': {
      state.stopped = true;
      state.usage = {
        ...state.usage,
        output_tokens: event.usage.output_tokens,
        ...(event.usage.input_tokens !== undefined ? { input_tokens: event.usage.input_tokens } : {}),
      };
      const usage = mapUsage(state.usage);
      return [
        {
          type: 'message_delta',
          delta: { stop_reason: event.delta.stop_reason },
          ...fields(state, { delta: {}, finish_reason: mapStopReason(event.delta.stop_reason) ?? 'stop' }),
          usage: { output_tokens: event.usage.output_tokens, ...usage },
        },
      ];
    }
    case 'error':
      state.error = mapNativeError(event.error);
      return [];
    default:
      return [];
  }
}

/** A stream that ended without message_delta is reported, for the route to put into the stream. */
export function finishNativeChatStream(state: NativeChatStreamState): {
  events: NativeChatStreamOutput[];
  error?: ProxyError;
} {
  if (state.error) return { events: [], error: state.error };
  if (!state.stopped)
    return { events: [], error: new ProxyError('upstream', 'The provider stream ended without a stop reason') };
  return { events: [] };
}
