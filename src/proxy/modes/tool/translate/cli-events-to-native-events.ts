// Parsed CLI stdout lines (cli-events.ts) -> one native stream for the client, plus a terminal outcome.
// step/finish as in docs/principles.md "Step and finish". What the recordings (fixtures/cli-recordings) taught:
// - With partial messages the CLI wraps native events in `stream_event` lines and ALSO prints the whole message
//   as an `assistant` line in the middle of them; that line is skipped by message id, or the text would repeat.
// - Without partial messages only the `assistant` line carries the answer; it is expanded into a synthetic event
//   sequence (one text delta per block: the CLI gives no token streaming then).
// - The CLI may take several turns (its own tools): the client sees one message: one message_start, blocks
//   renumbered in order, and one message_delta + message_stop when the `result` line arrives. tool_use blocks of
//   the CLI's own tools are left out: the client did not define those tools and cannot answer them.
// - `result` supplies the final usage, copied from result.usage (never estimated), and the stop reason when no
//   message_delta or assistant line gave one.
// - Failures arrive as a `<synthetic>` assistant line with `error`, then an is_error `result`: see map-cli-error.ts.
// - The client's own tools (options.clientToolNames; docs/tool-mode.md "The client's own tools"): their tool_use
//   blocks are passed on under the client's name with the provider's id and input deltas, and a message that stops
//   with tool_use after calling one of them ends the client's answer there (`pause`): the CLI now calls them
//   through the proxy's MCP server and waits. Usage is then this answer's own: the calls since it began (a
//   `result` line counts the whole turn, so `usageBase`, what earlier answers reported, is taken off it).
// - A JSON schema (options.structuredOutputTool; docs/tool-mode.md "Structured output"): the CLI offers the model its
//   own tool of that schema and prints the validated object as the result line's `structured_output`. That object,
//   as JSON, is the answer's one text block, and its stop reason end_turn: the tool's calls, the model's other text
//   and the CLI's tool_use stop reason never reach the client. The block opens when the model starts the tool's call
//   (so the first-event deadline sees the answer begin) and gets its text from `result`; a result without the object
//   (the model never gave one the CLI accepted) is an error (cli-structured-answer.ts).

import { ProxyError } from '../../../errors.js';
import type { CliBlock, CliLineParse, CliMessage, CliNativeEvent, CliUsage } from './cli-events.js';
import type {
  NativeContentDelta,
  NativeResponseBlock,
  NativeStreamEvent,
  NativeUsage,
} from '../../../formats/native.js';
import { isStructuredCall, openStructured, structuredAnswer } from './cli-structured-answer.js';
import { addUsage, overUsage, subtractUsage } from '../../../formats/map-usage.js';
import { mapCliError, type CliErrorOptions, type CliFailure } from './map-cli-error.js';

export interface CliTranslateOptions extends CliErrorOptions {
  /**
   * The model named in message_start when the CLI's own events name none (a failure before any message, a synthetic
   * one). Otherwise the answer names the model the provider really received, as the CLI reports it: a CLI may send
   * another model than the one asked for (docs/tool-mode.md "Answers").
   */
  model?: string;
  /** The CLI's name of each client tool (mcp__<server>__<name>) -> the client's name; unset: no client tools. */
  clientToolNames?: ReadonlyMap<string, string>;
  /** Usage already reported by earlier answers of the same turn, taken off the `result` line's totals. */
  usageBase?: NativeUsage;
  /** The CLI's structured-output tool when the request gave a JSON schema; unset: a plain answer. */
  structuredOutputTool?: string;
}

/** A `system/api_retry` line: the CLI is retrying a failed provider call by itself (for logs and a retry bound). */
export interface CliRetry {
  attempt: number;
  maxRetries?: number;
  delayMs?: number;
  status: number | null;
  error?: string;
}

export interface CliStep {
  events: NativeStreamEvent[];
  retry?: CliRetry;
  /** The CLI reported a failure: the chat is over; throw it (the route renders it). */
  error?: ProxyError;
  /** The `result` line arrived: nothing more will come. */
  done: boolean;
  /** The answer ended with calls of these client tools (their tool_use ids); the CLI waits for their results. */
  pause?: string[];
}

export interface CliTranslateState {
  readonly options: CliTranslateOptions;
  started: boolean;
  streamedIds: Set<string>;
  /** CLI block index within the current streamed message -> our index, or null for a block left out. */
  indexOf: Map<number, number | null>;
  open: Set<number>;
  nextIndex: number;
  usage: NativeUsage;
  stopReason: string | null;
  stopSequence: string | null;
  lastRetry?: CliRetry;
  failure?: CliFailure;
  done: boolean;
  /** Ids of client tool_use blocks in the current provider call. */
  toolUseIds: string[];
  /** Usage of the earlier provider calls of this answer (client tools only). */
  earlierCalls?: NativeUsage;
  /** Our index of the structured answer's text block, once opened. */
  structuredIndex?: number;
}

export function createCliTranslateState(options: CliTranslateOptions): CliTranslateState {
  return {
    options,
    started: false,
    streamedIds: new Set(),
    indexOf: new Map(),
    open: new Set(),
    nextIndex: 0,
    usage: { input_tokens: 0, output_tokens: 0 },
    stopReason: null,
    stopSequence: null,
    done: false,
    toolUseIds: [],
  };
}

/** A client tool's tool_use block under the client's own name, or undefined for any other tool. */
function clientToolUse(block: CliBlock, state: CliTranslateState): NativeResponseBlock | undefined {
  const name =
    block.type === 'tool_use' && block.name !== undefined ? state.options.clientToolNames?.get(block.name) : undefined;
  if (name === undefined || block.id === undefined) return undefined;
  state.toolUseIds.push(block.id);
  return { type: 'tool_use', id: block.id, name, input: {} };
}

/** The blocks a client can use, empty as a content_block_start carries them; others are left out (see above). */
function startBlockOf(block: CliBlock, state: CliTranslateState): NativeResponseBlock | undefined {
  if (block.type === 'tool_use') return clientToolUse(block, state);
  if (state.structuredIndex !== undefined) return undefined;
  if (block.type === 'text') return state.options.structuredOutputTool ? undefined : { type: 'text', text: '' };
  if (block.type === 'thinking') return { type: 'thinking', thinking: '' };
  if (block.type === 'redacted_thinking' && block.data !== undefined)
    return { type: 'redacted_thinking', data: block.data };
  return undefined;
}

function deltaOf(delta: {
  type: string;
  text?: string;
  thinking?: string;
  signature?: string;
  partial_json?: string;
  citation?: unknown;
}): NativeContentDelta | undefined {
  if (delta.type === 'text_delta' && delta.text !== undefined) return { type: 'text_delta', text: delta.text };
  if (delta.type === 'thinking_delta' && delta.thinking !== undefined)
    return { type: 'thinking_delta', thinking: delta.thinking };
  if (delta.type === 'signature_delta' && delta.signature !== undefined)
    return { type: 'signature_delta', signature: delta.signature };
  // A cited block's citations, which the CLI streams as the provider sends them (documents with citations enabled).
  if (delta.type === 'citations_delta' && delta.citation !== undefined)
    return { type: 'citations_delta', citation: delta.citation };
  // Only reaches a client for a block kept above (a client tool's input, as the model writes it).
  if (delta.type === 'input_json_delta' && delta.partial_json !== undefined)
    return { type: 'input_json_delta', partial_json: delta.partial_json };
  return undefined;
}

function messageStart(
  state: CliTranslateState,
  id: string,
  model: string,
  usage: CliUsage | null | undefined,
): NativeStreamEvent[] {
  state.usage = overUsage(usage, state.usage);
  if (state.started) return [];
  state.started = true;
  const message = {
    id,
    type: 'message' as const,
    role: 'assistant' as const,
    model: model && model !== '<synthetic>' ? model : (state.options.model ?? model),
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: { ...state.usage },
  };
  return [{ type: 'message_start', message }];
}

function closeOpen(state: CliTranslateState): NativeStreamEvent[] {
  const events: NativeStreamEvent[] = [...state.open].map((index) => ({ type: 'content_block_stop', index }));
  state.open.clear();
  return events;
}

function stepStreamEvent(event: CliNativeEvent, state: CliTranslateState): NativeStreamEvent[] {
  switch (event.type) {
    case 'message_start': {
      if (state.options.clientToolNames && state.streamedIds.size > 0) {
        // A later provider call of the same answer: the earlier ones' usage is kept for the answer's own total.
        state.earlierCalls = addUsage(state.earlierCalls, state.usage);
        state.usage = { input_tokens: 0, output_tokens: 0 };
      }
      state.streamedIds.add(event.message.id);
      state.indexOf.clear();
      state.toolUseIds = [];
      return [...closeOpen(state), ...messageStart(state, event.message.id, event.message.model, event.message.usage)];
    }
    case 'content_block_start': {
      const block = startBlockOf(event.content_block, state);
      if (!block) {
        state.indexOf.set(event.index, null);
        return isStructuredCall(event.content_block, state.options.structuredOutputTool) ? openStructured(state) : [];
      }
      const index = state.nextIndex++;
      state.indexOf.set(event.index, index);
      state.open.add(index);
      return [{ type: 'content_block_start', index, content_block: block }];
    }
    case 'content_block_delta': {
      const index = state.indexOf.get(event.index);
      const delta = deltaOf(event.delta);
      return index == null || !delta ? [] : [{ type: 'content_block_delta', index, delta }];
    }
    case 'content_block_stop': {
      const index = state.indexOf.get(event.index);
      if (index == null || !state.open.delete(index)) return [];
      return [{ type: 'content_block_stop', index }];
    }
    case 'message_delta':
      // Held until `result`: a later turn may follow, and result carries the final usage.
      state.stopReason = event.delta.stop_reason ?? state.stopReason;
      state.stopSequence = event.delta.stop_sequence ?? null;
      state.usage = overUsage(event.usage, state.usage);
      return [];
    case 'ping':
      return [{ type: 'ping' }];
    case 'message_stop':
      return [];
    default:
      // message_stop is held until `result`; an `error` event is followed by the CLI's own retry or failure report.
      return [];
  }
}

/** An `assistant` line that was not streamed: one start, one whole delta and one stop per usable block. */
function expandMessage(message: CliMessage, state: CliTranslateState): NativeStreamEvent[] {
  const events = [...closeOpen(state), ...messageStart(state, message.id, message.model, message.usage)];
  for (const block of message.content) {
    const start = startBlockOf(block, state);
    if (!start) continue;
    const index = state.nextIndex++;
    events.push({ type: 'content_block_start', index, content_block: start });
    if (start.type === 'tool_use') {
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input ?? {}) },
      });
    }
    if (block.type === 'text' && block.text)
      events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: block.text } });
    if (block.type === 'thinking' && block.thinking) {
      events.push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: block.thinking } });
    }
    if (block.type === 'thinking' && block.signature) {
      events.push({
        type: 'content_block_delta',
        index,
        delta: { type: 'signature_delta', signature: block.signature },
      });
    }
    events.push({ type: 'content_block_stop', index });
  }
  if (message.stop_reason) state.stopReason = message.stop_reason;
  return events;
}

function failureError(state: CliTranslateState, failure: CliFailure): ProxyError {
  const retried429 = state.lastRetry?.status === 429 ? state.lastRetry.delayMs : undefined;
  return mapCliError(failure, state.options, retried429);
}

export function stepCliLine(parsed: CliLineParse, state: CliTranslateState): CliStep {
  if (state.done) return { events: [], done: true };
  switch (parsed.kind) {
    case 'system': {
      const line = parsed.line;
      if (line.subtype === 'init') return { events: [], done: false };
      if (line.subtype !== 'api_retry') return { events: [], done: false };
      const retry: CliRetry = {
        attempt: line.attempt ?? 0,
        maxRetries: line.max_retries,
        delayMs: line.retry_delay_ms,
        status: line.error_status ?? null,
        error: line.error ?? undefined,
      };
      state.lastRetry = retry;
      return { events: [], retry, done: false };
    }
    case 'stream_event': {
      const event = parsed.line.event;
      const events = stepStreamEvent(event, state);
      if (event.type === 'message_stop' && state.stopReason === 'tool_use' && state.toolUseIds.length > 0)
        return pauseFor(state, events);
      return { events, done: false };
    }
    case 'assistant': {
      const line = parsed.line;
      if (line.error || line.is_api_error_message) {
        const text = line.message.content.map((b) => b.text ?? '').join('');
        state.failure = {
          status: line.api_error_status ?? null,
          type: line.api_error_type,
          text: text || line.error || '',
        };
        return { events: [], done: false };
      }
      if (state.streamedIds.has(line.message.id)) return { events: [], done: false };
      return { events: expandMessage(line.message, state), done: false };
    }
    case 'result': {
      const line = parsed.line;
      state.done = true;
      if (line.is_error || state.failure) {
        const failure: CliFailure = {
          status: line.api_error_status ?? state.failure?.status ?? null,
          type: line.api_error_type ?? state.failure?.type,
          text: line.result || state.failure?.text || line.subtype,
        };
        return { events: [], error: failureError(state, failure), done: true };
      }
      const events: NativeStreamEvent[] = [];
      const noOutput = !state.started;
      if (noOutput) events.push(...messageStart(state, line.session_id ?? 'cli', state.options.model ?? '', undefined));
      if (state.options.structuredOutputTool) {
        const answer = structuredAnswer(line, state);
        if (answer instanceof ProxyError) return { events: [], error: answer, done: true };
        events.push(...closeOpen(state), ...answer);
      } else {
        events.push(...closeOpen(state));
        // A result without any assistant output still answers with its final text.
        if (noOutput && line.result) {
          const index = state.nextIndex++;
          events.push({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
          events.push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text: line.result } });
          events.push({ type: 'content_block_stop', index });
        }
      }
      let usage = overUsage(line.usage, state.usage);
      if (state.options.usageBase) usage = subtractUsage(usage, state.options.usageBase);
      events.push({
        type: 'message_delta',
        delta: { stop_reason: state.stopReason ?? line.stop_reason ?? null, stop_sequence: state.stopSequence },
        usage,
      });
      events.push({ type: 'message_stop' });
      return { events, done: true };
    }
    default:
      // unknown lines (e.g. `user` tool results of the CLI's own tools) and malformed ones: the caller logs them
      return { events: [], done: false };
  }
}

/** The answer ends with the client's tool calls: the stop reason, this answer's usage, message_stop. */
function pauseFor(state: CliTranslateState, events: NativeStreamEvent[]): CliStep {
  state.done = true;
  const usage = addUsage(state.earlierCalls, state.usage);
  events.push(...closeOpen(state));
  // A structured answer's block opened before the client's calls is closed empty: its object comes after them.
  if (state.structuredIndex !== undefined) events.push({ type: 'content_block_stop', index: state.structuredIndex });
  events.push({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage });
  events.push({ type: 'message_stop' });
  return { events, done: true, pause: [...state.toolUseIds] };
}

/** stdout ended. Without a `result` line the chat did not finish: report the failure seen, or that. */
export function finishCliLines(state: CliTranslateState): { events: NativeStreamEvent[]; error?: ProxyError } {
  if (state.done) return { events: [] };
  state.done = true;
  if (state.failure) return { events: [], error: failureError(state, state.failure) };
  return { events: [], error: new ProxyError('internal', 'The assistant CLI ended without a result') };
}
