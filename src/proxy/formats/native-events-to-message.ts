// Collects a native stream into one native message. A non-streaming answer is the same stream, collected
// (docs/architecture.md "The flow of one chat"), so streaming and non-streaming answers cannot drift apart (unless the
// backend asked its upstream for the whole message: Backend.message, docs/direct-mode.md).
// step/finish like the other stream translators (docs/principles.md "Step and finish"), plus `collectNativeMessage` for
// routes.

import { ProxyError } from '../errors.js';
import type { NativeMessage, NativeResponseBlock, NativeStreamEvent } from './native.js';
import { mapNativeError } from './map-native-error.js';

export interface NativeMessageState {
  message?: NativeMessage;
  /** Blocks by their native index; tool_use input JSON arrives in pieces and is parsed at content_block_stop. */
  blocks: NativeResponseBlock[];
  json: Map<number, string>;
  stopped: boolean;
  warnings: string[];
  error?: ProxyError;
}

export function createNativeMessageState(): NativeMessageState {
  return { blocks: [], json: new Map(), stopped: false, warnings: [] };
}

function parseToolInput(state: NativeMessageState, index: number): void {
  const block = state.blocks[index];
  const json = state.json.get(index);
  if (block?.type !== 'tool_use' || json === undefined || json === '') return;
  try {
    block.input = JSON.parse(json);
  } catch {
    // A stream cut by max_tokens can end inside the arguments; keep what was there and say so.
    state.warnings.push(`tool_use block ${index} (${block.name}) ended with incomplete input JSON`);
  }
  state.json.delete(index);
}

export function stepNativeMessage(event: NativeStreamEvent, state: NativeMessageState): void {
  if (state.error) return;
  switch (event.type) {
    case 'message_start':
      state.message = { ...event.message, content: [], usage: { ...event.message.usage } };
      return;
    case 'content_block_start':
      state.blocks[event.index] = { ...event.content_block };
      if (event.content_block.type === 'tool_use') state.json.set(event.index, '');
      return;
    case 'content_block_delta': {
      const block = state.blocks[event.index];
      const delta = event.delta;
      if (delta.type === 'text_delta' && block?.type === 'text') block.text += delta.text;
      else if (delta.type === 'citations_delta' && block?.type === 'text')
        block.citations = [...(Array.isArray(block.citations) ? block.citations : []), delta.citation];
      else if (delta.type === 'input_json_delta' && block?.type === 'tool_use') {
        state.json.set(event.index, (state.json.get(event.index) ?? '') + delta.partial_json);
      } else if (delta.type === 'thinking_delta' && block?.type === 'thinking') block.thinking += delta.thinking;
      else if (delta.type === 'signature_delta' && block?.type === 'thinking') block.signature = delta.signature;
      return;
    }
    case 'content_block_stop':
      parseToolInput(state, event.index);
      return;
    case 'message_delta':
      if (!state.message) return;
      state.message.stop_reason = event.delta.stop_reason;
      state.message.stop_sequence = event.delta.stop_sequence ?? null;
      for (const [key, value] of Object.entries(event.usage)) {
        if (typeof value === 'number') state.message.usage[key as keyof typeof state.message.usage] = value;
      }
      state.stopped = true;
      return;
    case 'error':
      state.error = mapNativeError(event.error);
      return;
    default:
      return;
  }
}

/** The collected message, or the error that ended the stream (an upstream error, or no stop reason). */
export function finishNativeMessage(state: NativeMessageState): {
  message?: NativeMessage;
  warnings: string[];
  error?: ProxyError;
} {
  if (state.error) return { warnings: state.warnings, error: state.error };
  if (!state.message || !state.stopped) {
    return {
      warnings: state.warnings,
      error: new ProxyError('upstream', 'The provider stream ended without a stop reason'),
    };
  }
  for (const index of state.json.keys()) parseToolInput(state, index);
  const content = state.blocks.filter((b) => b !== undefined);
  return { message: { ...state.message, content }, warnings: state.warnings };
}

/** Drains a backend stream into one message, showing each event to `seen` first; throws the ProxyError that ended it. */
export async function collectNativeMessage(
  events: AsyncIterable<NativeStreamEvent>,
  seen?: (event: NativeStreamEvent) => void,
): Promise<NativeMessage> {
  const state = createNativeMessageState();
  for await (const event of events) {
    seen?.(event);
    stepNativeMessage(event, state);
  }
  return collected(state);
}

function collected(state: NativeMessageState): NativeMessage {
  const { message, error } = finishNativeMessage(state);
  if (error || !message) throw error ?? new ProxyError('internal', 'no message');
  return message;
}
