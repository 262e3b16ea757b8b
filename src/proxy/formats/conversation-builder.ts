// The one conversation builder of the client formats' translators (compat, Ollama, Responses, native chat): each
// turns its own message list into the native system prompt and message list through it, so the native format's
// rules are written once:
// - system texts, wherever they stand, become the one native `system`, joined by blank lines, empty ones left out;
// - consecutive messages of one native role are merged, because the native format wants roles alternating;
// - a message with nothing in it is left out, with a warning where the format warns (compat, Ollama).
// Beside it, the pieces of content more than one format reads the same way: text blocks, a base64 data URL image,
// tool-call arguments given as JSON text. Each format keeps its own 400 wording where they differ.

import { invalidField } from '../errors.js';
import type { NativeContentBlock, NativeImageBlock, NativeMessageParam, NativeRole } from './native.js';

/** A text block of the system prompt, with the client's cache mark when it sent one. */
type SystemBlock = { type: 'text'; text: string; cache_control?: unknown };

export class ConversationBuilder {
  readonly messages: NativeMessageParam[] = [];
  private readonly system: string[] = [];
  /** The client's cache marks on system texts, by the index of the text they end. */
  private readonly systemMarks = new Map<number, unknown>();

  /** @param warnings where a left-out message is reported (the format's own list, in its order). */
  constructor(private readonly warnings: string[] = []) {}

  /** A system text; an empty one carries nothing and is left out. `mark`: the client's cache mark on it. */
  addSystem(text: string | null | undefined, mark?: unknown): void {
    if (!text) return;
    this.system.push(text);
    if (mark !== undefined) this.systemMarks.set(this.system.length - 1, mark);
  }

  /**
   * The native `system`: as systemText, or, when the client marked a system text for the cache, one text block per
   * system text so that each mark stays where the client put it (docs/direct-mode.md "The prompt cache").
   */
  systemPrompt(): string | SystemBlock[] | undefined {
    if (this.systemMarks.size === 0) return this.systemText();
    return this.system.map((text, i) => {
      const mark = this.systemMarks.get(i);
      return mark === undefined ? { type: 'text', text } : { type: 'text', text, cache_control: mark };
    });
  }

  /** The native `system`: the system texts in order, joined by a blank line; undefined when there are none. */
  systemText(): string | undefined {
    return this.system.length > 0 ? this.system.join('\n\n') : undefined;
  }

  /**
   * Appends a message, merged into the last one when it has the same role (a string content becomes a text block
   * then). Nothing is left out: the native chat format forwards its messages as they are.
   */
  append(role: NativeRole, content: string | NativeContentBlock[]): void {
    const last = this.messages.at(-1);
    if (last && last.role === role) {
      // Tool results go first in a user message (the provider's rule); a text after them stays after.
      last.content = [...blocksOf(last.content), ...blocksOf(content)];
    } else {
      this.messages.push({ role, content });
    }
  }

  /** Appends the blocks of one client message; a message without any is left out silently. */
  push(role: NativeRole, blocks: NativeContentBlock[]): void {
    if (blocks.length > 0) this.append(role, blocks);
  }

  /** As push, and a message without any blocks is named in a warning (`where`: "messages.3 (user)"). */
  pushOrWarn(role: NativeRole, blocks: NativeContentBlock[], where: string): void {
    if (blocks.length === 0) this.warnings.push(`${where} has no content and was left out`);
    else this.append(role, blocks);
  }

  /** The messages, when there is one to answer; a conversation of system texts alone is a 400. */
  nonEmptyMessages(): NativeMessageParam[] {
    if (this.messages.length === 0)
      throw invalidField('messages', 'must contain at least one user or assistant message');
    return this.messages;
  }
}

function blocksOf(content: string | NativeContentBlock[]): NativeContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** The text of a content given as a string or as parts; parts that are not text add nothing. */
export function textOf(content: string | ReadonlyArray<{ type: string; text?: string }>): string {
  return typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');
}

/** A text as native blocks: none for an empty text, which the provider refuses and which carries nothing. */
export function textBlocks(text: string | null | undefined): NativeContentBlock[] {
  return text ? [{ type: 'text', text }] : [];
}

/**
 * A client's cache mark on a content part (`cache_control`, the convention several gateways accept for the
 * compatible format), when it is an object; the provider checks the rest of it (docs/direct-mode.md).
 */
export function cacheMarkOf(part: object): unknown {
  const mark = (part as { cache_control?: unknown }).cache_control;
  return typeof mark === 'object' && mark !== null && !Array.isArray(mark) ? mark : undefined;
}

/** A block with the client's mark of `part` on it, when it has one. */
export function markedLike<B extends NativeContentBlock>(block: B, part: object): B {
  const mark = cacheMarkOf(part);
  return mark === undefined ? block : { ...block, cache_control: mark };
}

const dataUrl = /^data:([^;,]+);base64,(.*)$/s;

/** A `data:<type>;base64,...` URL as a native base64 image; undefined for anything else. */
export function imageBlockOfDataUrl(url: string): NativeImageBlock | undefined {
  const match = dataUrl.exec(url);
  return match ? { type: 'image', source: { type: 'base64', media_type: match[1], data: match[2] } } : undefined;
}

/** An image URL (compatible image_url parts, Responses input_image): a base64 data URL or an http(s) URL. */
export function imageBlockOfUrl(url: string, field: string): NativeImageBlock {
  const image = imageBlockOfDataUrl(url);
  if (image) return image;
  if (url.startsWith('data:')) throw invalidField(field, 'must be a base64 data URL (data:<type>;base64,...)');
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalidField(field, 'must be a data: URL or an http(s) URL');
}

/** How a format reads tool-call arguments sent as JSON text. */
export interface ToolArgumentRules {
  /** The 400's issue for text that is not JSON. */
  invalidJson: string;
  /** When set, JSON that is not an object is a 400 with this issue; when not, any JSON value is the input. */
  notAnObject?: string;
}

/** Tool-call arguments as JSON text -> the tool_use input. Some clients send "" (or blanks) for no arguments. */
export function parseToolArguments(text: string, field: string, rules: ToolArgumentRules): unknown {
  if (text.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    throw invalidField(field, rules.invalidJson);
  }
  if (rules.notAnObject !== undefined && (typeof input !== 'object' || input === null || Array.isArray(input)))
    throw invalidField(field, rules.notAnObject);
  return input;
}
