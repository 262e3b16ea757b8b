// A Responses request's compaction items, read before the format's parse (docs/compaction.md). Runs after the chain
// step (responses/chain-step.ts), on the whole input:
// - a `compaction` item (sealed by this proxy: seal.ts) stands for the conversation it replaced: it becomes one user
//   message holding the summary, where it stands. One that does not open (forged, altered, sealed on another machine
//   or before the key changed) is the client's 400 naming the item, with the way out: a new session. Never dropped,
//   never read as text;
// - a `compaction_trigger` item asks for a compaction instead of an answer (Codex's remote compaction); it must be the
//   last item, as the Responses API says;
// - `context_management: [{type: "compaction", compact_threshold}]` is checked and read; the parse names it as not
//   honoured.
// The user messages of the input, as the client sent them, are what a compaction keeps besides its summary (the
// compact endpoint's output: "all user messages, followed by a single compaction item").

import { invalidField, ProxyError } from '../../errors.js';
import type { CompactionSeal } from './seal.js';

type Item = Record<string, unknown>;

/** What the compaction step found in one request. */
export interface CompactionInput {
  /** The body the format parses: compaction items opened into summaries, the trigger gone. */
  body: unknown;
  /** The request ended with a compaction_trigger: answer with one compaction item. */
  trigger: boolean;
  /** The input's user messages as sent (compaction items and opened summaries left out). */
  userMessages: Item[];
  /** context_management's compaction threshold, in input tokens, when the request set one. */
  threshold?: number;
}

/** Marks the opened summary, so the model reads it as what it is and a later compaction can tell it apart. */
export function summaryMessage(summary: string): Item {
  return {
    type: 'message',
    role: 'user',
    content: [
      {
        type: 'input_text',
        text: `<conversation_summary>\nThe earlier part of this conversation was compacted. This summary stands for it:\n\n${summary}\n</conversation_summary>`,
      },
    ],
  };
}

const isObject = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v);

export function unopenable(field: string): ProxyError {
  return new ProxyError(
    'invalid_request',
    `${field} is a compaction item this proxy cannot open: it was not made here, was changed, or was made before the proxy's compaction key changed (another machine, or a new data directory). The conversation it stood for cannot be recovered from it; start a new session.`,
    { field, issue: 'cannot be opened', code: 'invalid_encrypted_content' },
  );
}

function thresholdOf(value: unknown): number | undefined {
  if (value == null) return undefined;
  if (!Array.isArray(value)) throw invalidField('context_management', 'must be an array');
  let threshold: number | undefined;
  value.forEach((entry, i) => {
    if (!isObject(entry) || entry.type !== 'compaction')
      throw invalidField(`context_management.${i}.type`, 'must be "compaction", the one kind there is');
    const t = entry.compact_threshold;
    if (t == null) return;
    if (typeof t !== 'number' || !Number.isInteger(t) || t < 1000)
      throw invalidField(`context_management.${i}.compact_threshold`, 'must be an integer of at least 1000 tokens');
    threshold = t;
  });
  return threshold;
}

export function readCompactionInput(raw: unknown, seal: CompactionSeal): CompactionInput {
  if (!isObject(raw)) return { body: raw, trigger: false, userMessages: [] };
  // Checked, and left on the body: the proxy does not compact by itself yet, so the parse names the field among
  // those not honoured (X-Proxy-Ignored-Params) rather than dropping it without a word (docs/compaction.md).
  const rest = raw;
  const threshold = thresholdOf(raw.context_management);
  const input = rest.input;
  const userMessages: Item[] = [];
  if (!Array.isArray(input)) {
    if (typeof input === 'string') userMessages.push({ type: 'message', role: 'user', content: input });
    return { body: rest, trigger: false, userMessages, ...(threshold !== undefined ? { threshold } : {}) };
  }
  let trigger = false;
  const items: unknown[] = [];
  input.forEach((item, i) => {
    if (!isObject(item)) return void items.push(item);
    if (item.type === 'compaction_trigger') {
      if (i !== input.length - 1) throw invalidField(`input.${i}`, 'a compaction_trigger must be the last input item');
      trigger = true;
      return;
    }
    if (item.type === 'compaction' || item.type === 'compaction_summary') {
      const sealed = item.encrypted_content;
      if (typeof sealed !== 'string' || sealed === '')
        throw invalidField(`input.${i}.encrypted_content`, 'is required: the compaction item this proxy returned');
      const opened = seal.open(sealed);
      if (!opened) throw unopenable(`input.${i}.encrypted_content`);
      items.push(summaryMessage(opened.summary));
      return;
    }
    if ((item.type === undefined || item.type === 'message') && item.role === 'user') userMessages.push(item);
    items.push(item);
  });
  return {
    body: { ...rest, input: items },
    trigger,
    userMessages,
    ...(threshold !== undefined ? { threshold } : {}),
  };
}
