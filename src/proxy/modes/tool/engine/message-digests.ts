// A request's messages in the compared form of conversation-history.ts, hashed at most once per request
// (docs/tool-mode.md "Live conversations"): the registry compares them with every candidate process's history, and
// the history kept after the turn is built from them, without hashing the conversation again. Not hashed at all when
// nothing asks (a response that chains by id is continued by id, never by its history).

import type { NativeMessageParam } from '../../../formats/native.js';
import { historyAfterTurn, historyEntryOf, type AnswerRecord, type HistoryEntry } from './conversation-history.js';

export class MessageDigests {
  private digests: HistoryEntry[] | undefined;

  constructor(readonly messages: NativeMessageParam[]) {}

  /** Each message's entry, hashed on first use. */
  entries(): HistoryEntry[] {
    return (this.digests ??= this.messages.map(historyEntryOf));
  }

  /** True when the messages are `history` plus one new user message (conversation-history.ts continuesHistory). */
  continue(history: HistoryEntry[]): boolean {
    const { messages } = this;
    if (history.length === 0 || messages.length !== history.length + 1) return false;
    if (messages[messages.length - 1].role !== 'user') return false;
    const entries = this.entries();
    return history.every((h, i) => entries[i].role === h.role && entries[i].digest === h.digest);
  }

  /** The history of a process that answered these messages with `answer` (conversation-history.ts historyAfterTurn). */
  after(answer: AnswerRecord): HistoryEntry[] {
    return [...this.entries(), ...historyAfterTurn([], answer)];
  }
}

/** The digests of `messages`, once: a caller that already has them passes them on. */
export function digestsOf(messages: NativeMessageParam[] | MessageDigests): MessageDigests {
  return messages instanceof MessageDigests ? messages : new MessageDigests(messages);
}
