// The earlier turns of a conversation -> a session transcript in the assistant CLI's own format, which a fresh process
// is started on (`--resume <file>`, docs/tool-mode.md "A fresh start"): the provider then receives the history as
// the structured messages direct mode would send (roles, tool_use/tool_result blocks, images, thinking), never as
// text inside one user message, so nothing a message holds can become another role. Pure; tested beside it.
//
// What the real CLI 2.1.330 was seen to do with such a file (recorded against the provider simulator):
// - it reads a chain of `user`/`assistant` entries linked by `parentUuid`, sends their `message`s as they are, then
//   the new user message of its stdin; with `--no-session-persistence` it writes nothing back to the file;
// - a tool call with no result after it is "repaired" with an error result ("Tool call interrupted"), and a
//   transcript that ends with a user message gets a made-up "No response requested." answer; so a conversation whose
//   newest message carries tool results cannot be resumed this way (`resumable` says no, and the text transcript of
//   native-request-to-cli-input.ts is used);
// - it adds its environment reminders to the first message a process sends, so a resumed process's first prompt
//   differs from an evicted live process's after the first message: the provider's cache serves the turn after a
//   fresh start, not the fresh start itself (docs/tool-mode.md).

import { randomUUID } from 'node:crypto';
import type { NativeContentBlock, NativeMessageParam, NativeRequest } from '../formats/native.js';

/** Whether a message list can be given to a fresh process as a transcript plus its newest user message. */
export function resumable(req: Pick<NativeRequest, 'messages' | 'tools' | 'tool_choice'>): boolean {
  const { messages } = req;
  if (messages.length < 2) return false;
  const last = messages[messages.length - 1];
  if (last.role !== 'user' || hasBlock(last, 'tool_result')) return false;
  // Tool blocks in the history need the tools offered: the provider refuses tool_use blocks with no tools defined,
  // and a request that offers none (no tools, or tool_choice none) runs as a plain chat (docs/tool-mode.md).
  const toolsOffered = (req.tools?.length ?? 0) > 0 && req.tool_choice?.type !== 'none';
  return toolsOffered || !messages.some((m) => hasBlock(m, 'tool_use') || hasBlock(m, 'tool_result'));
}

/** Whether a message holds a block of `type`. */
export function hasBlock(message: NativeMessageParam, type: NativeContentBlock['type']): boolean {
  return typeof message.content !== 'string' && message.content.some((b) => b.type === type);
}

/**
 * A block as the transcript holds it: the client's cache breakpoints are left out (the CLI sets its own, and the
 * provider takes at most four), and a tool call carries the name the CLI knows the tool by.
 */
function transcriptBlock(block: NativeContentBlock, toolName: (name: string) => string): NativeContentBlock {
  const { cache_control: _, ...rest } = block as NativeContentBlock & { cache_control?: unknown };
  if (rest.type === 'tool_use') return { ...rest, name: toolName(rest.name) };
  return rest;
}

/**
 * A user message of text only, as a live process was given it: one string, its blocks joined by blank lines
 * (native-request-to-cli-input.ts messageText), so that a resumed history reads like a live one.
 */
function userText(m: NativeMessageParam): string | undefined {
  if (typeof m.content === 'string') return m.content;
  if (m.role !== 'user' || !m.content.every((b) => b.type === 'text')) return undefined;
  return m.content
    .map((b) => (b.type === 'text' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n\n');
}

export interface TranscriptOptions {
  /** The CLI's name of a client tool (mcp__<server>__<name>); the name itself when the request offers no tools. */
  toolName: (name: string) => string;
  /** The model the assistant entries name (the one the process runs). */
  model: string;
  /** Entry ids and the clock, fixed in tests. */
  uuid?: () => string;
  now?: () => Date;
}

/** The JSONL text of a transcript holding `messages` (all but the newest user message), oldest first. */
export function messagesToCliTranscript(messages: NativeMessageParam[], opts: TranscriptOptions): string {
  const uuid = opts.uuid ?? randomUUID;
  const timestamp = (opts.now?.() ?? new Date()).toISOString();
  const sessionId = uuid();
  let parentUuid: string | null = null;
  const lines = messages.map((m) => {
    const content = userText(m) ?? (m.content as NativeContentBlock[]).map((b) => transcriptBlock(b, opts.toolName));
    const id = uuid();
    const message =
      m.role === 'user'
        ? { role: 'user', content }
        : {
            id: `msg_${id.replace(/-/g, '')}`,
            type: 'message',
            role: 'assistant',
            model: opts.model,
            content: typeof content === 'string' ? [{ type: 'text', text: content }] : content,
            stop_reason: hasBlock(m, 'tool_use') ? 'tool_use' : 'end_turn',
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0 },
          };
    const entry = { parentUuid, isSidechain: false, type: m.role, message, uuid: id, timestamp, sessionId };
    parentUuid = id;
    return JSON.stringify(entry);
  });
  return `${lines.join('\n')}\n`;
}
