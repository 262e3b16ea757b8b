// The contract every chat mode plugs into (docs/architecture.md "Modes"). A mode is one folder under modes/ that
// exports one Mode: the backend that answers its chats, and what it adds to one parse of a client body before the
// one answer path (chat/answer-chat.ts): which model id the upstream gets and which name the client sees, what it
// cannot honour, and the credential. A format knows nothing of modes and a mode nothing of formats beyond what a
// format declares of itself (formats/format.ts); routes/wire-routes.ts asks each row's mode for its Mode.
// Response-API mode answers no chat of a format (the upstream speaks its own events): it is no Mode, and lives
// beside modes/ in respapi/, with its own registrar.

import type { ModeName } from '../../shared/modes.js';
import type { Backend } from '../chat/backend.js';
import type { Chat } from '../chat/chat.js';
import type { AnswerMeta, AnswerWriter, WireFormat, WireRequest } from '../formats/format.js';
import type { ProxyContext } from '../http/types.js';

/** The modes that answer with native events (tool: the CLI; direct: the provider API): every mode of the one list
 * (src/shared/modes.ts) but the response-API relay, so a new mode there must have its Mode (modes/index.ts). */
export type ChatMode = Exclude<ModeName, 'respapi'>;

/** A format's answer writer, bound to the format. */
type AnswerOf<A> = (meta: AnswerMeta, options: A) => AnswerWriter;

export interface Mode {
  readonly name: ChatMode;
  readonly backend: Backend;
  /** A compaction's summary request keeps the conversation's tools (direct mode: the provider then reads the whole
   * prefix from its cache) rather than offering none (tool mode: a plain chat). responses/compaction/summary-request.ts. */
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
