// Native stream events -> compatible-format chunks (docs/interface.md "Compatible stream"), as
// `step(event, state) -> chunks` plus `finish(state)` (docs/principles.md "Step and finish"). What clients rely on
// (docs/lessons.md "Streams and clients"):
// - the first chunk carries role assistant with empty content;
// - every text delta becomes its own chunk, token by token, never merged;
// - tool calls stream with `index` (0-based count of tool calls, not the native block index), id, type and
//   function.name on their first delta, then argument pieces;
// - finish_reason stays null until the last chunk, which has an empty delta and the mapped stop reason;
// - the usage chunk (only with stream_options.include_usage) has `choices: []` and comes after that chunk.

import { ProxyError } from '../../errors.js';
import type { CompatChunk, CompatChunkDelta, CompatFinishReason } from './schema.js';
import type { NativeStreamEvent, NativeUsage } from '../native.js';
import { mapNativeError } from '../map-native-error.js';
import { finishReasonWithToolCalls } from '../map-stop-reason.js';
import { mapUsage } from '../map-usage.js';

export interface CompatChunkOptions {
  id: string;
  /** The model id to show the client. */
  model: string;
  /** Unix time in seconds, the same on every chunk. */
  created: number;
  includeUsage: boolean;
}

export interface CompatChunkState {
  readonly options: CompatChunkOptions;
  roleSent: boolean;
  /** Native block index -> tool call index. */
  toolCallOfBlock: Map<number, number>;
  toolCalls: number;
  usage: NativeUsage;
  finishReason: CompatFinishReason | null;
  error?: ProxyError;
}

export function createCompatChunkState(options: CompatChunkOptions): CompatChunkState {
  return {
    options,
    roleSent: false,
    toolCallOfBlock: new Map(),
    toolCalls: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    finishReason: null,
  };
}

function chunk(
  state: CompatChunkState,
  delta: CompatChunkDelta,
  finishReason: CompatFinishReason | null = null,
): CompatChunk {
  const { id, model, created } = state.options;
  return {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
  };
}

/** The role chunk goes first, whatever event opens the stream. */
function opening(state: CompatChunkState): CompatChunk[] {
  if (state.roleSent) return [];
  state.roleSent = true;
  return [chunk(state, { role: 'assistant', content: '' })];
}

export function stepCompatChunks(event: NativeStreamEvent, state: CompatChunkState): CompatChunk[] {
  // After the finish chunk or an error nothing more is sent: the stream is over for the client.
  if (state.finishReason !== null || state.error) return [];
  switch (event.type) {
    case 'message_start':
      state.usage = { ...event.message.usage };
      return opening(state);
    case 'content_block_start': {
      const block = event.content_block;
      if (block.type === 'tool_use') {
        const index = state.toolCalls++;
        state.toolCallOfBlock.set(event.index, index);
        return [
          ...opening(state),
          chunk(state, {
            tool_calls: [{ index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }],
          }),
        ];
      }
      if (block.type === 'text' && block.text !== '') return [...opening(state), chunk(state, { content: block.text })];
      return opening(state);
    }
    case 'content_block_delta': {
      const delta = event.delta;
      if (delta.type === 'text_delta' && delta.text !== '')
        return [...opening(state), chunk(state, { content: delta.text })];
      const index = state.toolCallOfBlock.get(event.index);
      if (delta.type === 'input_json_delta' && index !== undefined && delta.partial_json !== '') {
        return [
          ...opening(state),
          chunk(state, { tool_calls: [{ index, function: { arguments: delta.partial_json } }] }),
        ];
      }
      // thinking and signature deltas have no place in the compatible format
      return [];
    }
    case 'message_delta': {
      state.usage = { ...state.usage, ...definedOnly(event.usage) };
      const reason = finishReasonWithToolCalls(event.delta.stop_reason, state.toolCalls);
      state.finishReason = reason;
      const out = [...opening(state), chunk(state, {}, reason)];
      if (state.options.includeUsage) out.push(usageChunk(state));
      return out;
    }
    case 'error':
      state.error = mapNativeError(event.error);
      return [];
    default:
      // content_block_stop, message_stop, ping: nothing to tell the client
      return [];
  }
}

function definedOnly(usage: Partial<NativeUsage>): Partial<NativeUsage> {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== undefined && v !== null));
}

function usageChunk(state: CompatChunkState): CompatChunk {
  const { id, model, created } = state.options;
  return { id, object: 'chat.completion.chunk', created, model, choices: [], usage: mapUsage(state.usage) };
}

/**
 * Called when the native stream ends. A stream that ended without a stop reason is an error
 * (docs/principles.md "Step and finish"): the route puts it into the stream in the compatible error shape
 * (docs/principles.md "Errors after headers") instead of a made-up finish_reason.
 */
export function finishCompatChunks(state: CompatChunkState): { chunks: CompatChunk[]; error?: ProxyError } {
  if (state.error) return { chunks: [], error: state.error };
  if (state.finishReason === null) {
    return { chunks: [], error: new ProxyError('upstream', 'The provider stream ended without a stop reason') };
  }
  return { chunks: [] };
}
