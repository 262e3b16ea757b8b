// Native answers -> Ollama's answer lines (docs/ollama.md "Answers"): a whole message -> one chat or generate
// object, and a native event stream -> NDJSON lines as `step(event, state) -> lines` plus `finish(state)`
// (docs/principles.md "Step and finish"). Pure: the clock comes in through the state.
// - text deltas are lines of their own, never merged (message.content for chat, response for generate);
// - thinking deltas go to `thinking`; a tool call is one line with message.tool_calls once its arguments are whole
//   (Ollama's own streams send calls whole), with the native call's id added so a tool result can name it;
// - the last line has done: true, done_reason (stop, length), the provider's token counts (prompt_eval_count is the
//   whole prompt, cache reads and writes included; never estimated) and the durations the proxy measured, in ns;
// - a stream that ends without a stop reason is an error, never a made-up done line.

import { ProxyError } from '../../errors.js';
import type { NativeMessage, NativeStreamEvent, NativeUsage } from '../native.js';
import { mapNativeError } from '../map-native-error.js';
import type {
  OllamaAnswerMessage,
  OllamaChatLine,
  OllamaDoneFields,
  OllamaGenerateLine,
  OllamaToolCall,
} from './schemas.js';

export type OllamaAnswerKind = 'chat' | 'generate';

const doneReasonOfStopReason = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  tool_use: 'stop',
  pause_turn: 'stop',
  refusal: 'stop',
  max_tokens: 'length',
} as const satisfies Record<string, string>;

function mapDoneReason(reason: string | null | undefined): string {
  return reason && Object.hasOwn(doneReasonOfStopReason, reason)
    ? doneReasonOfStopReason[reason as keyof typeof doneReasonOfStopReason]
    : 'stop';
}

interface OllamaAnswerMeta {
  kind: OllamaAnswerKind;
  /** The model name shown to the client: the one that served the answer (chat/answer-chat.ts). */
  model: string;
  /** When the request started, ms (for total_duration). */
  startedAt: number;
}

const nsPerMs = 1_000_000;

function createdAt(ms: number): string {
  return new Date(ms).toISOString();
}

/** Token counts and durations of a finished answer. firstAt: the first content's time, when known. */
function doneFields(
  reason: string | null | undefined,
  usage: Partial<NativeUsage>,
  startedAt: number,
  endedAt: number,
  firstAt?: number,
): OllamaDoneFields {
  const total = Math.max(0, endedAt - startedAt);
  const prompt = firstAt === undefined ? 0 : Math.max(0, firstAt - startedAt);
  return {
    done: true,
    done_reason: mapDoneReason(reason),
    total_duration: total * nsPerMs,
    load_duration: 0,
    prompt_eval_count:
      (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
    prompt_eval_duration: prompt * nsPerMs,
    eval_count: usage.output_tokens ?? 0,
    eval_duration: (total - prompt) * nsPerMs,
  };
}

function toolCallOf(id: string, name: string, input: unknown, index: number): OllamaToolCall {
  const args =
    typeof input === 'object' && input !== null && !Array.isArray(input) ? (input as Record<string, unknown>) : {};
  return { id, function: { index, name, arguments: args } };
}

/** A whole native message -> the one Ollama answer object. */
export function nativeMessageToOllama(
  message: NativeMessage,
  meta: OllamaAnswerMeta,
  now: number,
): OllamaChatLine | OllamaGenerateLine {
  let text = '';
  let thinking = '';
  const calls: OllamaToolCall[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'thinking') thinking += block.thinking;
    else if (block.type === 'tool_use') calls.push(toolCallOf(block.id, block.name, block.input, calls.length));
  }
  const done = doneFields(message.stop_reason, message.usage, meta.startedAt, now);
  if (meta.kind === 'generate')
    return {
      model: meta.model,
      created_at: createdAt(now),
      response: text,
      ...(thinking ? { thinking } : {}),
      ...done,
    };
  const answer: OllamaAnswerMessage = {
    role: 'assistant',
    content: text,
    ...(thinking ? { thinking } : {}),
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
  return { model: meta.model, created_at: createdAt(now), message: answer, ...done };
}

/** The answer to a request with nothing to answer (Ollama's "load the model"). */
export function ollamaLoadAnswer(meta: OllamaAnswerMeta, now: number): OllamaChatLine | OllamaGenerateLine {
  const fields = { model: meta.model, created_at: createdAt(now), done: true as const, done_reason: 'load' };
  return meta.kind === 'generate'
    ? ({ ...fields, response: '' } as OllamaGenerateLine)
    : ({ ...fields, message: { role: 'assistant', content: '' } } as OllamaChatLine);
}

interface OllamaStreamState {
  readonly meta: OllamaAnswerMeta;
  readonly now: () => number;
  firstAt?: number;
  usage: Partial<NativeUsage>;
  /** Native block index -> the tool call being read (its arguments arrive in pieces). */
  calls: Map<number, { id: string; name: string; json: string }>;
  callCount: number;
  stopReason?: string | null;
  done: boolean;
  error?: ProxyError;
}

export function createOllamaStreamState(meta: OllamaAnswerMeta, now: () => number): OllamaStreamState {
  return { meta, now, usage: {}, calls: new Map(), callCount: 0, done: false };
}

type Line = OllamaChatLine | OllamaGenerateLine;

function partLine(
  state: OllamaStreamState,
  part: { content?: string; thinking?: string; tool_calls?: OllamaToolCall[] },
): Line {
  const t = state.now();
  state.firstAt ??= t;
  const { model, kind } = state.meta;
  if (kind === 'generate')
    return {
      model,
      created_at: createdAt(t),
      response: part.content ?? '',
      ...(part.thinking ? { thinking: part.thinking } : {}),
      done: false,
    };
  return {
    model,
    created_at: createdAt(t),
    message: { role: 'assistant', content: part.content ?? '', ...part },
    done: false,
  };
}

export function stepOllamaStream(event: NativeStreamEvent, state: OllamaStreamState): Line[] {
  if (state.done || state.error) return [];
  switch (event.type) {
    case 'message_start':
      state.usage = { ...event.message.usage };
      return [];
    case 'content_block_start': {
      const block = event.content_block;
      if (block.type === 'tool_use') {
        // A generate answer has no place for tool calls; the chat route is the one that offers tools.
        if (state.meta.kind === 'chat') state.calls.set(event.index, { id: block.id, name: block.name, json: '' });
        return [];
      }
      if (block.type === 'text' && block.text !== '') return [partLine(state, { content: block.text })];
      if (block.type === 'thinking' && block.thinking !== '') return [partLine(state, { thinking: block.thinking })];
      return [];
    }
    case 'content_block_delta': {
      const delta = event.delta;
      if (delta.type === 'text_delta' && delta.text !== '') return [partLine(state, { content: delta.text })];
      if (delta.type === 'thinking_delta' && delta.thinking !== '')
        return [partLine(state, { thinking: delta.thinking })];
      if (delta.type === 'input_json_delta') {
        const call = state.calls.get(event.index);
        if (call) call.json += delta.partial_json;
      }
      return [];
    }
    case 'content_block_stop': {
      const call = state.calls.get(event.index);
      if (!call) return [];
      state.calls.delete(event.index);
      let input: unknown = {};
      if (call.json.trim() !== '') {
        try {
          input = JSON.parse(call.json);
        } catch {
          state.error = new ProxyError('upstream', `The tool call ${call.name} came with arguments that are not JSON`);
          return [];
        }
      }
      return [partLine(state, { tool_calls: [toolCallOf(call.id, call.name, input, state.callCount++)] })];
    }
    case 'message_delta': {
      for (const [key, value] of Object.entries(event.usage))
        if (value !== null && value !== undefined) (state.usage as Record<string, number>)[key] = value as number;
      state.stopReason = event.delta.stop_reason;
      return [];
    }
    case 'message_stop': {
      if (state.stopReason === undefined) return [];
      state.done = true;
      return [lastLine(state)];
    }
    case 'error':
      state.error = mapNativeError(event.error);
      return [];
    default:
      return [];
  }
}

function lastLine(state: OllamaStreamState): Line {
  const t = state.now();
  const { model, kind } = state.meta;
  const done = doneFields(state.stopReason, state.usage, state.meta.startedAt, t, state.firstAt);
  return kind === 'generate'
    ? { model, created_at: createdAt(t), response: '', ...done }
    : { model, created_at: createdAt(t), message: { role: 'assistant', content: '' }, ...done };
}

/**
 * Called when the native stream ends. A stream with a stop reason but no message_stop still gets its done line; one
 * without a stop reason is an error, which the route writes as Ollama's in-stream error line.
 */
export function finishOllamaStream(state: OllamaStreamState): { lines: Line[]; error?: ProxyError } {
  if (state.error) return { lines: [], error: state.error };
  if (state.done) return { lines: [] };
  if (state.stopReason === undefined)
    return { lines: [], error: new ProxyError('upstream', 'The provider stream ended without a stop reason') };
  state.done = true;
  return { lines: [lastLine(state)] };
}
