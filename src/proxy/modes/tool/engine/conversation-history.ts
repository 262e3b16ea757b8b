// What "the same history" means for a live conversation (docs/tool-mode.md "Live conversations"): a request
// continues a live CLI process (a new user turn, or the tool results it waits for) only when its messages are
// exactly what that process has seen (the earlier turns and its own last answer) plus one new user message. Pure;
// tested beside it.
//
// Every message the CLIENT wrote (user turns, tool results) is compared byte for byte: a whitespace edit is an edit
// (`rm -rf / tmp` is not `rm -rf /tmp`, Python indentation is meaning). Only representation is not content:
// - a string content and one text block with the same text are the same; cache_control marks and other block fields
//   the provider does not show the model are left out.
// An ASSISTANT message is what the process itself answered, re-sent by the client in its own shape, so it is
// compared in the form every client can rebuild from what it was sent: its text blocks joined with nothing (the
// compatible format gives one string), without leading or trailing whitespace, then its tool calls (id, name, input
// with keys sorted). Thinking blocks are left out (clients drop them from later turns). A changed character inside
// the text is an edit.
// Anything else (an edited or shortened history, a different earlier answer) does not match: a fresh process starts.
// Each message is kept as a hash of that form, so a long history costs little memory.

import { createHash } from 'node:crypto';
import type { NativeContentBlock, NativeMessageParam, NativeStreamEvent } from '../../../formats/native.js';

export interface HistoryEntry {
  role: 'user' | 'assistant';
  /** sha256 of the message's compared form. */
  digest: string;
}

/** What a process answered in one turn, as the client received it. */
export interface AnswerRecord {
  text: string;
  toolUses: Array<{ id: string; name: string; input: unknown }>;
}

/** JSON with object keys sorted, so that a client's re-serialisation of a tool input compares equal. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    return `{${Object.keys(rec)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(rec[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

/** A client-written block, exactly. */
function userBlockForm(block: NativeContentBlock): unknown {
  switch (block.type) {
    case 'text':
      return ['text', block.text];
    case 'image':
      return ['image', block.source];
    case 'document':
      return ['document', block.source, block.title ?? null, block.context ?? null];
    case 'tool_result': {
      const content =
        typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : (block.content ?? []);
      const items = content.map((b) =>
        b.type === 'text' ? ['text', b.text] : ['image', (b as { source?: unknown }).source],
      );
      return ['tool_result', block.tool_use_id, block.is_error === true, items];
    }
    case 'tool_use':
      return ['tool_use', block.id, block.name, stableJson(block.input ?? {})];
    case 'thinking':
    case 'redacted_thinking':
      return undefined;
    default: {
      const { cache_control: _ignored, ...rest } = block as unknown as Record<string, unknown>;
      return ['other', stableJson(rest)];
    }
  }
}

function digestOf(role: 'user' | 'assistant', form: unknown): HistoryEntry {
  return { role, digest: createHash('sha256').update(JSON.stringify(form)).digest('hex') };
}

function assistantForm(answer: AnswerRecord): unknown {
  return [answer.text.trim(), answer.toolUses.map((t) => [t.id, t.name, stableJson(t.input ?? {})])];
}

/** An assistant message as an answer record (text blocks joined, tool calls in order). */
function assistantRecord(message: NativeMessageParam): AnswerRecord {
  if (typeof message.content === 'string') return { text: message.content, toolUses: [] };
  const text: string[] = [];
  const toolUses: AnswerRecord['toolUses'] = [];
  for (const b of message.content) {
    if (b.type === 'text') text.push(b.text);
    else if (b.type === 'tool_use') toolUses.push({ id: b.id, name: b.name, input: b.input });
  }
  return { text: text.join(''), toolUses };
}

/** A message in its compared form. */
export function historyEntryOf(message: NativeMessageParam): HistoryEntry {
  if (message.role === 'assistant') return digestOf('assistant', assistantForm(assistantRecord(message)));
  const blocks =
    typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content;
  return digestOf(
    'user',
    blocks.map(userBlockForm).filter((f) => f !== undefined),
  );
}

/** The history a process has after answering `messages` with `answer` (as streamed to the client). */
export function historyAfterTurn(messages: NativeMessageParam[], answer: AnswerRecord | string): HistoryEntry[] {
  const record = typeof answer === 'string' ? { text: answer, toolUses: [] } : answer;
  return [...messages.map(historyEntryOf), digestOf('assistant', assistantForm(record))];
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

/**
 * Builds the answer record of a turn from the events sent to the client: text deltas, and tool_use blocks with
 * their input (streamed as JSON pieces). Only the top-level text and tool calls count; thinking does not.
 */
export class AnswerRecorder {
  private readonly text: string[] = [];
  private readonly tools = new Map<number, { id: string; name: string; json: string[]; input: unknown }>();

  add(event: NativeStreamEvent): void {
    if (event.type === 'content_block_start' && event.content_block.type === 'tool_use') {
      const b = event.content_block;
      this.tools.set(event.index, { id: b.id, name: b.name, json: [], input: b.input });
    } else if (event.type === 'content_block_delta') {
      if (event.delta.type === 'text_delta') this.text.push(event.delta.text);
      else if (event.delta.type === 'input_json_delta')
        this.tools.get(event.index)?.json.push(event.delta.partial_json);
    }
  }

  /** The text streamed so far. */
  get answerText(): string {
    return this.text.join('');
  }

  record(): AnswerRecord {
    const toolUses = [...this.tools.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([, t]) => {
        let input: unknown = t.input ?? {};
        const json = t.json.join('');
        if (json !== '') {
          try {
            input = JSON.parse(json) as unknown;
          } catch {
            input = json; // never equal to a client's parsed input: the next request starts fresh
          }
        }
        return { id: t.id, name: t.name, input };
      });
    return { text: this.answerText, toolUses };
  }
}
