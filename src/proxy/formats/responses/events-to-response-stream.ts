// Native stream events -> the Responses API's event stream, as `step(event, state) -> events` plus `finish(state)`
// (docs/principles.md "Step and finish"). Every data object carries its own `type` (and the event line repeats it) and
// a sequence_number. What the clients read (Codex, the OpenAI SDK's stream helper, the AI SDK):
//   message_start        response.created, response.in_progress (the response, status in_progress)
//   text block           response.output_item.added (message) -> content_part.added -> output_text.delta ... ->
//                        output_text.done -> content_part.done -> output_item.done
//   thinking block       output_item.added (reasoning) -> reasoning_summary_part.added ->
//                        reasoning_summary_text.delta ... -> .done -> reasoning_summary_part.done -> output_item.done
//                        (its signature becomes the item's encrypted_content)
//   tool_use block       output_item.added (function_call) -> function_call_arguments.delta ... -> .done ->
//                        output_item.done; a freeform tool's call is a custom_tool_call whose input is known only
//                        once its JSON is whole: one custom_tool_call_input.delta, then .done
//   message_stop         response.completed with usage, or response.incomplete (max_output_tokens, content_filter)
// An error event, or a stream that ends without message_stop, ends the stream with response.failed
// (failResponseStream, the stream writer's error shape).

import { ProxyError } from '../../errors.js';
import type { NativeStreamEvent, NativeUsage, NativeStopReason } from '../native.js';
import type { SseEvent } from '../../http/sse.js';
import { mapNativeError } from '../map-native-error.js';
import { overUsage } from '../map-usage.js';
import type { AnswerMeta } from '../format.js';
import type { ResponsesAnswerOptions } from './request-to-native.js';
import {
  annotationOf,
  baseResponse,
  itemId,
  responsesErrorCode,
  responsesErrorMessage,
  responsesUsage,
  statusOf,
  toolCallItem,
} from './response-parts.js';
import type { ResponsesOutputItem, ResponsesResponse } from './schema.js';

interface OpenBlock {
  kind: 'text' | 'thinking' | 'function' | 'custom' | 'skip';
  outputIndex: number;
  id: string;
  text: string;
  signature?: string;
  call?: { id: string; name: string; input: unknown };
  /** A text block's citations as annotations, in the order they came. */
  annotations?: unknown[];
}

interface ResponseStreamState {
  readonly id: string;
  readonly meta: AnswerMeta;
  readonly options: ResponsesAnswerOptions;
  sequence: number;
  open: Map<number, OpenBlock>;
  output: ResponsesOutputItem[];
  usage: NativeUsage;
  stop: NativeStopReason | null;
  stopped: boolean;
  reasoned: boolean;
  error?: ProxyError;
}

export function createResponseStreamState(
  id: string,
  meta: AnswerMeta,
  options: ResponsesAnswerOptions,
): ResponseStreamState {
  return {
    id,
    meta,
    options,
    sequence: 0,
    open: new Map(),
    output: [],
    usage: { input_tokens: 0, output_tokens: 0 },
    stop: null,
    stopped: false,
    reasoned: false,
  };
}

function emit(state: ResponseStreamState, type: string, fields: Record<string, unknown>): SseEvent {
  return { event: type, data: { type, sequence_number: state.sequence++, ...fields } };
}

/** The response object as it stands (output items done so far, usage so far). */
function responseSoFar(state: ResponseStreamState): ResponsesResponse {
  return {
    ...baseResponse(state.id, state.meta, state.options),
    output: [...state.output],
    usage: state.stopped || state.error ? responsesUsage(state.usage, state.reasoned) : null,
  };
}

function startBlock(
  state: ResponseStreamState,
  index: number,
  block: Extract<NativeStreamEvent, { type: 'content_block_start' }>['content_block'],
): SseEvent[] {
  const outputIndex = state.output.length + state.open.size;
  if (block.type === 'text') {
    const open: OpenBlock = { kind: 'text', outputIndex, id: itemId('msg'), text: block.text ?? '' };
    state.open.set(index, open);
    return [
      emit(state, 'response.output_item.added', {
        output_index: outputIndex,
        item: { type: 'message', id: open.id, status: 'in_progress', role: 'assistant', content: [] },
      }),
      emit(state, 'response.content_part.added', {
        item_id: open.id,
        output_index: outputIndex,
        content_index: 0,
        part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
      }),
      ...(open.text
        ? [
            emit(state, 'response.output_text.delta', {
              item_id: open.id,
              output_index: outputIndex,
              content_index: 0,
              delta: open.text,
              logprobs: [],
            }),
          ]
        : []),
    ];
  }
  if (block.type === 'thinking') {
    state.reasoned = true;
    const open: OpenBlock = {
      kind: 'thinking',
      outputIndex,
      id: itemId('rs'),
      text: block.thinking ?? '',
      signature: block.signature,
    };
    state.open.set(index, open);
    return [
      emit(state, 'response.output_item.added', {
        output_index: outputIndex,
        item: { type: 'reasoning', id: open.id, summary: [] },
      }),
      emit(state, 'response.reasoning_summary_part.added', {
        item_id: open.id,
        output_index: outputIndex,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      }),
    ];
  }
  if (block.type === 'tool_use') {
    const custom = state.options.customTools.has(block.name);
    const open: OpenBlock = {
      kind: custom ? 'custom' : 'function',
      outputIndex,
      id: itemId(custom ? 'ctc' : 'fc'),
      text: '',
      call: { id: block.id, name: block.name, input: block.input },
    };
    state.open.set(index, open);
    const item = custom
      ? { type: 'custom_tool_call', id: open.id, status: 'in_progress', call_id: block.id, name: block.name, input: '' }
      : {
          type: 'function_call',
          id: open.id,
          status: 'in_progress',
          call_id: block.id,
          name: block.name,
          arguments: '',
        };
    return [emit(state, 'response.output_item.added', { output_index: outputIndex, item })];
  }
  state.reasoned = true; // redacted thinking: counted as reasoning, nothing readable to show
  state.open.set(index, { kind: 'skip', outputIndex, id: '', text: '' });
  return [];
}

function delta(
  state: ResponseStreamState,
  index: number,
  d: Extract<NativeStreamEvent, { type: 'content_block_delta' }>['delta'],
): SseEvent[] {
  const open = state.open.get(index);
  if (!open) return [];
  const at = { item_id: open.id, output_index: open.outputIndex };
  if (d.type === 'text_delta' && open.kind === 'text') {
    open.text += d.text;
    return [emit(state, 'response.output_text.delta', { ...at, content_index: 0, delta: d.text, logprobs: [] })];
  }
  if (d.type === 'citations_delta' && open.kind === 'text') {
    // The provider sends a block's citations before its text: each points at where the block's text starts.
    const annotation = annotationOf(d.citation, open.text.length, 0);
    if (!annotation) return [];
    open.annotations = [...(open.annotations ?? []), annotation];
    return [
      emit(state, 'response.output_text.annotation.added', {
        ...at,
        content_index: 0,
        annotation_index: open.annotations.length - 1,
        annotation,
      }),
    ];
  }
  if (d.type === 'thinking_delta' && open.kind === 'thinking') {
    open.text += d.thinking;
    return [emit(state, 'response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: d.thinking })];
  }
  if (d.type === 'signature_delta' && open.kind === 'thinking') {
    open.signature = (open.signature ?? '') + d.signature;
    return [];
  }
  if (d.type === 'input_json_delta' && (open.kind === 'function' || open.kind === 'custom')) {
    open.text += d.partial_json;
    return open.kind === 'function' && d.partial_json !== ''
      ? [emit(state, 'response.function_call_arguments.delta', { ...at, delta: d.partial_json })]
      : [];
  }
  return [];
}

/** A tool call's input: the streamed JSON when there was any, else what content_block_start carried. */
function callInput(open: OpenBlock): unknown {
  if (open.text.trim() === '') return open.call?.input ?? {};
  try {
    return JSON.parse(open.text);
  } catch {
    throw new ProxyError(
      'upstream',
      `The assistant's call of ${open.call?.name ?? 'a tool'} has input that is not valid JSON`,
    );
  }
}

function stopBlock(state: ResponseStreamState, index: number): SseEvent[] {
  const open = state.open.get(index);
  if (!open) return [];
  state.open.delete(index);
  const at = { item_id: open.id, output_index: open.outputIndex };
  const out: SseEvent[] = [];
  let item: ResponsesOutputItem;
  if (open.kind === 'skip') return [];
  if (open.kind === 'text') {
    const part = { type: 'output_text' as const, text: open.text, annotations: open.annotations ?? [], logprobs: [] };
    item = { type: 'message', id: open.id, status: 'completed', role: 'assistant', content: [part] };
    out.push(
      emit(state, 'response.output_text.done', { ...at, content_index: 0, text: open.text, logprobs: [] }),
      emit(state, 'response.content_part.done', { ...at, content_index: 0, part }),
    );
  } else if (open.kind === 'thinking') {
    const part = { type: 'summary_text' as const, text: open.text };
    item = {
      type: 'reasoning',
      id: open.id,
      summary: open.text === '' ? [] : [part],
      ...(open.signature ? { encrypted_content: open.signature } : {}),
    };
    out.push(
      emit(state, 'response.reasoning_summary_text.done', { ...at, summary_index: 0, text: open.text }),
      emit(state, 'response.reasoning_summary_part.done', { ...at, summary_index: 0, part }),
    );
  } else {
    item = toolCallItem({ id: open.call!.id, name: open.call!.name, input: callInput(open) }, state.options, open.id);
    if (item.type === 'custom_tool_call') {
      out.push(
        emit(state, 'response.custom_tool_call_input.delta', { ...at, delta: item.input }),
        emit(state, 'response.custom_tool_call_input.done', { ...at, input: item.input }),
      );
    } else if (item.type === 'function_call') {
      // Arguments that came whole with the block's start (no deltas) are sent as one delta first.
      if (open.text.trim() === '')
        out.push(emit(state, 'response.function_call_arguments.delta', { ...at, delta: item.arguments }));
      out.push(
        emit(state, 'response.function_call_arguments.done', { ...at, name: item.name, arguments: item.arguments }),
      );
    }
  }
  state.output[open.outputIndex] = item;
  out.push(emit(state, 'response.output_item.done', { output_index: open.outputIndex, item }));
  return out;
}

export function stepResponseStream(event: NativeStreamEvent, state: ResponseStreamState): SseEvent[] {
  switch (event.type) {
    case 'message_start': {
      state.usage = overUsage(event.message.usage, state.usage);
      const response = responseSoFar(state);
      return [emit(state, 'response.created', { response }), emit(state, 'response.in_progress', { response })];
    }
    case 'content_block_start':
      return startBlock(state, event.index, event.content_block);
    case 'content_block_delta':
      return delta(state, event.index, event.delta);
    case 'content_block_stop':
      return stopBlock(state, event.index);
    case 'message_delta':
      state.usage = overUsage(event.usage, state.usage);
      if (event.delta.stop_reason != null) state.stop = event.delta.stop_reason;
      return [];
    case 'message_stop': {
      state.stopped = true;
      const { status, incomplete_details } = statusOf(state.stop);
      const response = { ...responseSoFar(state), status, incomplete_details };
      if (status === 'incomplete')
        for (const item of response.output) if (item.type === 'message') item.status = 'incomplete';
      return [emit(state, status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response })];
    }
    case 'error':
      state.error = mapNativeError(event.error);
      return [];
    default:
      return [];
  }
}

export function finishResponseStream(state: ResponseStreamState): { events: SseEvent[]; error?: ProxyError } {
  if (state.error) return { events: [], error: state.error };
  if (!state.stopped) return { events: [], error: new ProxyError('upstream', 'The stream ended without message_stop') };
  return { events: [] };
}

/** The one event that ends a failed stream: response.failed with the code the client acts on. */
export function failResponseStream(state: ResponseStreamState, err: ProxyError): SseEvent[] {
  const response = {
    ...responseSoFar(state),
    status: 'failed' as const,
    error: { code: responsesErrorCode(err), message: responsesErrorMessage(err) },
  };
  return [emit(state, 'response.failed', { response })];
}
