// What "the same history" means for a live conversation (docs/tool-mode.md "Live conversations"): a request
// continues a live CLI process only when its messages are exactly what that process has seen (the earlier turns and
// its own last answer) plus one new user message. Pure; tested beside it.
//
// Clients re-send earlier turns with small differences that do not change what the model saw, so messages are
// compared in a reduced form:
// - the role, and the message's text with ALL whitespace removed (clients trim answers, re-join text blocks with or
//   without blank lines, or change line endings);
// - a string content and a list of text blocks with the same text are the same;
// - thinking and redacted_thinking blocks are left out (clients drop them from later turns; a fresh process never
//   sees them either, native-request-to-cli-input.ts);
// - tool_use and tool_result blocks count with their ids, names, inputs and contents, so a tool result the CLI is
//   waiting for is a different message from one it is not;
// - cache_control marks and other block fields are ignored.
// Anything else (an edited or shortened history, a different earlier answer) does not match: a fresh process starts.
// Each message is kept as a hash of that form, so a long history costs little memory.

import { createHash } from 'node:crypto';
import type { NativeContentBlock, NativeMessageParam } from '../formats/native.js';

export interface HistoryEntry {
  role: 'user' | 'assistant';
  /** sha256 of the message's compared form. */
  digest: string;
}

function blockForm(block: NativeContentBlock): string | undefined {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return `\u0001tool_use:${block.id}:${block.name}:${JSON.stringify(block.input ?? {})}`;
    case 'tool_result': {
      const content =
        typeof block.content === 'string'
          ? block.content
          : (block.content ?? []).map((b) => (b.type === 'text' ? b.text : `\u0001image:${JSON.stringify(b.source)}`)).join('');
      return `\u0001tool_result:${block.tool_use_id}:${block.is_error === true}:${content}`;
    }
    case 'image':
      return `\u0001image:${JSON.stringify(block.source)}`;
    default:
      return undefined; // thinking, redacted_thinking
  }
}

function digestOf(role: string, text: string): HistoryEntry {
  return { role: role as HistoryEntry['role'], digest: createHash('sha256').update(text.replace(/\s+/g, '')).digest('hex') };
}

/** A message in its compared form. */
export function historyEntryOf(message: NativeMessageParam): HistoryEntry {
  const text =
    typeof message.content === 'string'
      ? message.content
      : message.content
          .map(blockForm)
          .filter((t): t is string => t !== undefined)
          .join('');
  return digestOf(message.role, text);
}

/** The history a process has after answering `messages` with `answer` (its text, as streamed). */
export function historyAfterTurn(messages: NativeMessageParam[], answer: string): HistoryEntry[] {
  return [...messages.map(historyEntryOf), digestOf('assistant', answer)];
}

/** True when `messages` are `history` plus one new user message. */
export function continuesHistory(history: HistoryEntry[], messages: NativeMessageParam[]): boolean {
  if (history.length === 0 || messages.length !== history.length + 1) return false;
  if (messages[messages.length - 1].role !== 'user') return false;
  for (let i = 0; i < history.length; i++) {
    const entry = historyEntryOf(messages[i]);
    if (entry.role !== history[i].role || entry.digest !== history[i].digest) return false;
  }
  return true;
}
