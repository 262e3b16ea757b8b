// A chat, as a mode hands it to the one answer path (answer-chat.ts): the translated request, the answer's shape (the
// route's wire format), the names of the model, what was not honoured, and what the backend needs of this request.
// Built by each mode's prepare step (modes/mode.ts, Mode.prepare) from the one parse of a body.

import type { BackendContext } from './backend.js';
import type { AnswerMeta, AnswerWriter } from '../formats/format.js';
import type { NativeRequest } from '../formats/native.js';

/** What a mode's prepare step makes of one parsed body, for the answer path. */
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
  /** Client field names that are not honoured (docs/interface.md "Parameter translation": never dropped silently). */
  ignored: string[];
  /** Lossy translation notes, logged. */
  warnings: string[];
  /** False when the client cannot send tool results back by id (the legacy `functions` form). */
  toolResultsReturn?: boolean;
  /** Direct mode: the credential and headers this request calls for (the backend is built once per proxy). */
  upstream?: Pick<BackendContext, 'auth' | 'headers'>;
  /** The request asks nothing (formats/format.ts WireRequest.asksNothing): no backend call. */
  asksNothing?: boolean;
  /** A response that chains by id (responses/chain-step.ts), handed to the backend. */
  link?: BackendContext['link'];
  /** Nothing continues this conversation (a compaction's summary): BackendContext.once. */
  once?: boolean;
}
