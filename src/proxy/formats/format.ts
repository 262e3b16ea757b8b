// The contract every client wire format plugs into (docs/architecture.md "Wire formats"). A format is one folder
// under formats/ that exports one WireFormat: how its request body becomes the one native request (parsed once, for
// every mode that serves it), and how a native answer is written back in its shape, whole or as a stream, with its
// own error shape after headers. The chat path (chat/answer-chat.ts) knows this interface only; the route table
// (route-table.ts) names a format and a mode on each chat row, and routes/wire-routes.ts registers those rows.
//
// What stays out of a format: the mode. Which model id the upstream gets, what the CLI cannot honour (sampling
// settings, stop sequences, parallel-call control), and the credential are the mode's (modes/); a
// format only says, for the native fields it filled, which client field each came from (clientNames), so the mode
// can name them in X-Proxy-Ignored-Params in the client's own words.
//
// One folder, formats/, for what was split between formats/ (schemas) and wire/ (the contract): a format is its schema,
// its translators both ways and its error shapes together. The folder's root holds the provider's own native format
// (native.ts, native-schemas.ts) and what every format shares.

import type { ProxyError } from '../errors.js';
import type { NativeMessage, NativeRequest, NativeSamplingField, NativeStreamEvent } from './native.js';
import type { StreamErrorShape } from '../http/stream-error.js';
import type { SseEvent } from '../http/sse.js';
import type { Profile } from '../profile.js';

/** What a format's parse may read besides the body: the provider's request rules (defaults, thinking budgets). It is
 * the same for every mode: a format does not branch on the mode (modes/mode.ts). */
export interface ParseContext {
  api: Profile['api'];
}

/** Native request fields a mode may be unable to honour, by the client field each came from. */
export type ClientNames = Partial<
  Record<
    | NativeSamplingField
    | 'thinking'
    | 'parallel_tool_calls'
    | 'max_tokens'
    | 'format'
    | 'strict'
    | 'tool_choice'
    // Where the structured-output schema and a tool's schema are, for the 400 of one that is not valid JSON Schema
    // (formats/check-schemas.ts); a tool's with `tools.` before the tool's index.
    | 'schema'
    | 'toolSchema',
    string
  >
>;

/** One parse of a client body: the native request and what the answer side needs to know of the request. */
export interface WireRequest<A = unknown> {
  /** The native request, model as the client named it (the mode resolves it), without `stream`. */
  request: NativeRequest;
  stream: boolean;
  /** Client field names accepted but not honoured (X-Proxy-Ignored-Params: never dropped silently). */
  ignored: string[];
  /** Lossy conversions, in words; logged at warn. */
  warnings: string[];
  /** The client's own names of the native fields above, for the mode's "cannot honour" list. */
  clientNames: ClientNames;
  /** max_tokens is the format's default, not the client's: direct mode sets the model's own (docs/models.md). */
  maxTokensDefaulted?: boolean;
  /** False when the client cannot send tool results back by id (chat/backend.ts BackendContext). */
  toolResultsReturn?: boolean;
  /** Handed back to answer(): what the answer's shape depends on (include_usage, custom tool names, ...). */
  answer: A;
  /** The request asks nothing of the model (Ollama's "load the model": no messages); answered by whole() of an
   * empty message without a backend call, once the mode has resolved the model. */
  asksNothing?: boolean;
}

/** What every answer shows, fixed by the answer path per request. */
export interface AnswerMeta {
  /** The model id to show the client: the one that served the answer, as a listed id (chat/answer-chat.ts makes
   * the writer once the backend's first event or whole message names it), else the one the request resolved to. */
  model: string;
  /** Unix time in seconds. */
  created: number;
  /** When the request started, ms, and the proxy's clock: for a format that reports durations (Ollama's). */
  startedAt?: number;
  now?: () => number;
}

/** A stream translator (docs/principles.md "Step and finish"): step per native event, finish at the end, its error
 * shape after headers. */
export interface StreamWriter {
  /** How the events go on the wire: SSE (the default), or NDJSON, one event's data per line (Ollama's). */
  framing?: 'sse' | 'ndjson';
  step(event: NativeStreamEvent): SseEvent[];
  /** True once an error event arrived: the stream ends with it. */
  failed(): boolean;
  /** Closes what is open; reports a stream that ended without a stop reason as an error instead of inventing one. */
  finish(): { events: SseEvent[]; error?: ProxyError };
  /** How a failure after headers is written (its streamEvents; the stream then ends) and named for the log,
   * metrics and ledger: the format's error shape, or one made for this stream when its events carry the stream's
   * state (the Responses API's response.failed). */
  errors: StreamErrorShape;
}

/** How one request's answer is written. */
export interface AnswerWriter {
  /** The whole answer's JSON body. */
  whole(message: NativeMessage): unknown;
  stream(): StreamWriter;
}

export interface WireFormat<A = unknown> {
  /** The name route-table rows give. */
  readonly name: string;
  /** Its error shape (docs/interface.md "Errors"; http/error-shape.ts): the body of its routes' errors once a request
   * reached one, the events of its stream writer's failures after headers, and their type name. Its family is its
   * routes' (route-table.ts rows give the same one, which shapes what is refused before routing: the access key, the
   * rate limit, an unknown path). */
  readonly errorShape: StreamErrorShape;
  /** Its requests may name an earlier response and its answers are kept (the Responses API's
   * previous_response_id): responses/chain-step.ts runs before parse and around the answer. */
  readonly chains?: boolean;
  /** Its requests may hold compaction items, and ask for a compaction (docs/compaction.md): `on-trigger` when the
   * input ends with a compaction_trigger, `always` on the compact endpoint. responses/compaction-step.ts runs
   * after the chain step, before parse. */
  readonly compacts?: 'on-trigger' | 'always';
  /** The tool types that are the client's own in this format, and the direct-mode path that serves the others (the
   * tools the provider runs itself): for a mode that cannot offer those (tool mode refuses them, modes/tool/). */
  readonly clientTools?: { types: readonly string[]; directPath: string };
  /** Validates and translates a body; a bad body throws the 400 ProxyError naming the field. */
  parse(body: unknown, context: ParseContext): WireRequest<A>;
  answer(meta: AnswerMeta, answer: A): AnswerWriter;
}
