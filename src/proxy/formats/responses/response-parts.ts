// The pieces a Responses answer is made of, shared by the whole answer (message-to-response.ts) and the stream
// (events-to-response-stream.ts), so the two cannot drift: the response object, its usage, its status, item ids,
// and the error a failed response carries.

import { randomHex } from '../../http/request-id.js';
import type { ProxyError } from '../../errors.js';
import type { NativeStopReason, NativeUsage } from '../native.js';
import { compatErrorShape } from '../compat/error-shape.js';
import type { AnswerMeta } from '../format.js';
import type { ResponsesAnswerOptions } from './request-to-native.js';
import type { ResponsesOutputItem, ResponsesResponse, ResponsesStatus, ResponsesUsage } from './schema.js';

export const itemId = (prefix: 'msg' | 'rs' | 'fc' | 'ctc' | 'cmp'): string => `${prefix}_${randomHex()}`;

/**
 * Native usage -> Responses usage. The provider counts cache reads and writes apart from input_tokens; the
 * Responses format counts them inside input_tokens and names the reads cached_tokens. It counts thinking inside
 * output_tokens and never apart, so reasoning_tokens is given only when it is known to be 0 (no thinking).
 */
export function responsesUsage(usage: NativeUsage, reasoned: boolean): ResponsesUsage {
  const cached = usage.cache_read_input_tokens ?? 0;
  const input = usage.input_tokens + cached + (usage.cache_creation_input_tokens ?? 0);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached },
    output_tokens: usage.output_tokens,
    ...(reasoned ? {} : { output_tokens_details: { reasoning_tokens: 0 } }),
    total_tokens: input + usage.output_tokens,
  };
}

/**
 * A native citation -> a Responses annotation at `index` (the offset in the output text where the cited text
 * starts): a document's as a `file_citation` (the document's title as its file name, its place in the request as its
 * id, since no file was uploaded), a web result's as a `url_citation`; the cited text is kept in `quote`. Undefined for
 * a citation of a kind it does not know.
 */
export function annotationOf(citation: unknown, index: number, length: number): Record<string, unknown> | undefined {
  if (typeof citation !== 'object' || citation === null) return undefined;
  const c = citation as Record<string, unknown>;
  const quote = typeof c.cited_text === 'string' ? { quote: c.cited_text } : {};
  if (typeof c.url === 'string')
    return {
      type: 'url_citation',
      url: c.url,
      title: c.title ?? null,
      start_index: index,
      end_index: index + length,
      ...quote,
    };
  if (typeof c.document_index !== 'number') return undefined;
  const filename = typeof c.document_title === 'string' ? c.document_title : `document ${c.document_index + 1}`;
  return { type: 'file_citation', file_id: `document_${c.document_index}`, filename, index, ...quote };
}

/** A text block's citations as annotations at `index`. */
export function annotationsOf(citations: unknown, index: number, length: number): Array<Record<string, unknown>> {
  if (!Array.isArray(citations)) return [];
  return citations.flatMap((c: unknown) => {
    const annotation = annotationOf(c, index, length);
    return annotation ? [annotation] : [];
  });
}

/** A stop reason -> the response's status and why it is incomplete (the reasons clients act on). */
export function statusOf(stop: NativeStopReason | null): {
  status: ResponsesStatus;
  incomplete_details: { reason: string } | null;
} {
  if (stop === 'max_tokens') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (stop === 'refusal') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/**
 * The code a Responses client acts on (Codex: context_length_exceeded ends the turn, insufficient_quota stops,
 * rate_limit_exceeded waits and retries): the compatible code (docs/interface.md "Compatible errors",
 * formats/compat/error-shape.ts).
 */
export function responsesErrorCode(err: ProxyError): string {
  return compatErrorShape.typeName(err);
}

/** A rate-limit message that says when to try again, in the words Codex reads the delay from. */
export function responsesErrorMessage(err: ProxyError): string {
  if (err.kind === 'rate_limit' && err.retryAfter !== undefined && !/try again in/i.test(err.message))
    return `${err.message} Please try again in ${err.retryAfter}s.`;
  return err.message;
}

export function baseResponse(id: string, meta: AnswerMeta, options: ResponsesAnswerOptions): ResponsesResponse {
  return {
    id,
    object: 'response',
    created_at: meta.created,
    status: 'in_progress',
    model: meta.model,
    output: [],
    usage: null,
    error: null,
    incomplete_details: null,
    parallel_tool_calls: options.parallelToolCalls,
    tool_choice: options.toolChoice,
    tools: options.tools,
    store: options.store ?? false,
    previous_response_id: options.previousResponseId ?? null,
    metadata: {},
  };
}

/** A finished tool_use block as the item kind its tool is: freeform tools answer custom_tool_call. */
export function toolCallItem(
  block: { id: string; name: string; input: unknown },
  options: ResponsesAnswerOptions,
  id: string,
): ResponsesOutputItem {
  if (options.customTools.has(block.name)) {
    const input = block.input as { input?: unknown } | null;
    const text =
      input && typeof input === 'object' && typeof input.input === 'string'
        ? input.input
        : JSON.stringify(block.input ?? {});
    return { type: 'custom_tool_call', id, status: 'completed', call_id: block.id, name: block.name, input: text };
  }
  return {
    type: 'function_call',
    id,
    status: 'completed',
    call_id: block.id,
    name: block.name,
    arguments: JSON.stringify(block.input ?? {}),
  };
}

/**
 * Codex's prewarm (`generate: false`, docs/responses-socket.md): a response with no output and no usage, as the
 * events a stream of it would carry (`response.created`, `response.completed`), and the completed response to keep.
 */
export function prewarmAnswer(
  id: string,
  body: Record<string, unknown>,
  created: number,
): { events: Array<{ type: string; sequence_number: number; response: ResponsesResponse }>; done: ResponsesResponse } {
  const response = baseResponse(
    id,
    { model: String(body.model ?? ''), created },
    {
      customTools: new Set(),
      parallelToolCalls: body.parallel_tool_calls !== false,
      toolChoice: body.tool_choice ?? 'auto',
      tools: Array.isArray(body.tools) ? body.tools : [],
      previousResponseId: typeof body.previous_response_id === 'string' ? body.previous_response_id : null,
      store: body.store !== false,
    },
  );
  const usage = { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, total_tokens: 0 };
  const done: ResponsesResponse = { ...response, status: 'completed', usage };
  return {
    events: [
      { type: 'response.created', sequence_number: 0, response },
      { type: 'response.completed', sequence_number: 1, response: done },
    ],
    done,
  };
}
