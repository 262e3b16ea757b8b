// The contract every chat mode plugs into (docs/architecture.md "Modes"). A mode is one folder under modes/ that
// exports one Mode: the backend that answers its chats, and what it adds to one parse of a client body before the
// one answer path (routes/answer-chat.ts): which model id the upstream gets and which name the client sees, what it
// cannot honour, and the credential. A format knows nothing of modes and a mode nothing of formats beyond what a
// format declares of itself (formats/format.ts); routes/wire-routes.ts asks each row's mode for its Mode.
// Response-API mode answers no chat of a format (the upstream speaks its own events): it is no Mode, and lives
// beside modes/ in respapi/, with its own registrar.

import type { ModeName } from '../../shared/modes.js';
import type { Backend, BackendContext } from './backend.js';
import type { AnswerMeta, AnswerWriter, WireFormat, WireRequest } from '../formats/format.js';
import type { ProxyContext } from '../http/types.js';
import type { NativeRequest } from '../formats/native.js';

/** The modes that answer with native events (tool: the CLI; direct: the provider API): every mode of the one list
 * (src/shared/modes.ts) but the response-API relay, so a new mode there must have its Mode (modes/index.ts). */
export type ChatMode = Exclude<ModeName, 'respapi'>;

/** What a route hands to the answer path. */
export interface Chat {
  /** The translated request, without `stream` (the backend decides how it talks to its upstream). */
  request: NativeRequest;
  /** The answer's shape (the route's wire format, given what it needs of the request). */
  answer: (meta: AnswerMeta) => AnswerWriter;
  stream: boolean;
  /** The model as the client named it (the log's and the ledger's "requested"). */
  requestedModel: string;
  /** The model id shown to the client when the answer names none (a failure before any message, a load). */
  publicModel: string;
  /** The name to show clients for the model an answer reports (tool mode: the CLI may echo an alias). */
  servedName?: (served: string) => string;
  /** Client field names that are not honoured (SPEC.md §2.2, §8: never dropped silently). */
  ignored: string[];
  /** Lossy translation notes, logged. */
  warnings: string[];
  /** False when the client cannot send tool results back by id (the legacy `functions` form). */
  toolResultsReturn?: boolean;
  /** Direct mode: the credential and headers this request calls for (the backend is built once per proxy). */
  upstream?: Pick<BackendContext, 'auth' | 'headers'>;
  /** The request asks nothing (formats/format.ts WireRequest.asksNothing): no backend call. */
  asksNothing?: boolean;
  /** A response that chains by id (routes/response-chain.ts), handed to the backend. */
  link?: BackendContext['link'];
  /** Nothing continues this conversation (a compaction's summary): BackendContext.once. */
  once?: boolean;
}

/** A format's answer writer, bound to the format. */
type AnswerOf<A> = (meta: AnswerMeta, options: A) => AnswerWriter;

export interface Mode {
  readonly name: ChatMode;
  readonly backend: Backend;
  /** A compaction's summary request keeps the conversation's tools (direct mode: the provider then reads the whole
   * prefix from its cache) rather than offering none (tool mode: a plain chat). compaction/summary-request.ts. */
  readonly summaryKeepsTools: boolean;
  /** What the mode refuses of a raw body before the format's parse reads it (tool mode: provider-run tools). */
  refuse?(body: unknown, format: WireFormat<unknown>): void;
  /** The one parse of the body made into the chat this mode answers. */
  prepare<A>(ctx: ProxyContext, parsed: WireRequest<A>, answer: AnswerOf<A>): Chat | Promise<Chat>;
}

/** The part of a Chat that every mode builds alike from the parse. */
export function chatOf<A>(
  parsed: WireRequest<A>,
  answer: AnswerOf<A>,
  ignored: string[],
): Omit<Chat, 'requestedModel' | 'publicModel' | 'servedName'> {
  return {
    request: parsed.request,
    stream: parsed.stream,
    answer: (meta) => answer(meta, parsed.answer),
    ignored,
    warnings: parsed.warnings,
    ...(parsed.toolResultsReturn === false ? { toolResultsReturn: false } : {}),
    ...(parsed.asksNothing ? { asksNothing: true } : {}),
  };
}
