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
// - it adds its environment reminders (environment, model, token budget, date) to the first message a process sends,
//   and the budget one to every later prompt; it keeps them in its own transcripts as `attachment` entries after the
//   user entry they go with, and a resumed process sends those in place and announces nothing again. So a transcript
//   with the announcements a live process made (withAnnouncements, learnt from the CLI itself by
//   modes/tool/engine/announcements.ts) gives the provider the prefix that process left in its cache (docs/tool-mode.md).

import { randomUUID } from 'node:crypto';
import type { NativeContentBlock, NativeMessageParam, NativeRequest } from '../../../formats/native.js';

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

interface TranscriptOptions {
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

/** The CLI's own context entries of a process's first prompt and of every later one (modes/tool/engine/announcements.ts). */
export interface Announced {
  /** The `attachment` objects the CLI adds to the first message a process sends, in order. */
  first: Record<string, unknown>[];
  /** Those it adds to each later user prompt. */
  everyTurn: Record<string, unknown>[];
}

/**
 * `transcript` (messagesToCliTranscript) with the CLI's announcements where a live process had them: `first` after
 * the first user entry, `everyTurn` after each later user prompt (not after tool results: a live process gets those
 * from its own tool loop, not as prompts; what it adds to them was not measured), the chain of `parentUuid`s linked
 * again in file order.
 */
export function withAnnouncements(transcript: string, announced: Announced, uuid: () => string = randomUUID): string {
  const entries = transcript
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown> & { message: NativeMessageParam });
  const out: Record<string, unknown>[] = [];
  let users = 0;
  for (const entry of entries) {
    out.push(entry);
    if (entry.type !== 'user' || hasBlock(entry.message, 'tool_result')) continue;
    for (const attachment of users++ === 0 ? announced.first : announced.everyTurn) {
      const { timestamp, sessionId } = entry;
      out.push({ isSidechain: false, attachment, type: 'attachment', uuid: uuid(), timestamp, sessionId });
    }
  }
  let parentUuid: unknown = null;
  const lines = out.map((e) => {
    const { parentUuid: _, ...rest } = e;
    const line = JSON.stringify({ parentUuid, ...rest });
    parentUuid = e.uuid;
    return line;
  });
  return `${lines.join('\n')}\n`;
}

/**
 * What the CLI announced in a session file of its own (JSONL) on its first two user prompts: the `attachment` entries
 * that reach the prompt (those with a `rendered` form) after each; undefined when the first prompt had none.
 */
export function announcedIn(sessionFile: string): Announced | undefined {
  const groups: Record<string, unknown>[][] = [];
  for (const line of sessionFile.split('\n')) {
    let entry: { type?: unknown; attachment?: unknown; rendered?: unknown };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      continue;
    }
    if (entry.type === 'user') groups.push([]);
    else if (entry.type === 'attachment' && entry.rendered !== undefined && groups.length > 0)
      groups[groups.length - 1].push(entry.attachment as Record<string, unknown>);
  }
  if (!groups[0]?.length) return undefined;
  return { first: groups[0], everyTurn: groups[1] ?? [] };
}
