// Compatible-format messages -> the native system prompt and message list. The whole conversation is kept
// (PEERS.md: a peer that sent only the last user message lost the system prompt, the history and the images).
// Rules, each because of how the native format differs:
// - system and developer messages, wherever they stand, become the one native `system` (joined by blank lines);
// - `tool` messages become user tool_result blocks, so adjacent ones end up in one user message;
// - consecutive messages of the same native role are merged, because the native format wants them alternating;
// - assistant tool_calls become tool_use blocks with their JSON arguments parsed (invalid JSON is the client's
//   error: 400 on that field).

import { invalidField } from '../../errors.js';
import type { CompatMessage } from './schema.js';
import type { NativeContentBlock, NativeImageBlock, NativeMessageParam, NativeRole } from '../native.js';

interface NativeConversation {
  system?: string;
  messages: NativeMessageParam[];
  warnings: string[];
}

type TextContent = string | Array<{ type: 'text'; text: string }>;

function textOf(content: TextContent): string {
  return typeof content === 'string' ? content : content.map((p) => p.text).join('');
}

function textBlocks(text: string): NativeContentBlock[] {
  // The provider refuses empty text blocks, and an empty string carries nothing.
  return text === '' ? [] : [{ type: 'text', text }];
}

const dataUrl = /^data:([^;,]+);base64,(.*)$/s;

/** image_url parts: data URLs become base64 image sources, http(s) URLs become url sources. */
export function imageBlockOfUrl(url: string, field: string): NativeImageBlock {
  const match = dataUrl.exec(url);
  if (match) return { type: 'image', source: { type: 'base64', media_type: match[1], data: match[2] } };
  if (url.startsWith('data:')) throw invalidField(field, 'must be a base64 data URL (data:<type>;base64,...)');
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw invalidField(field, 'must be a data: URL or an http(s) URL');
}

function parseArguments(args: string, field: string): unknown {
  // Some clients send "" for a call without arguments.
  if (args.trim() === '') return {};
  let input: unknown;
  try {
    input = JSON.parse(args);
  } catch {
    throw invalidField(field, 'must be valid JSON');
  }
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw invalidField(field, 'must be a JSON object');
  return input;
}

function blocksOf(message: CompatMessage, i: number): { role: NativeRole; blocks: NativeContentBlock[] } {
  switch (message.role) {
    case 'user': {
      if (typeof message.content === 'string') return { role: 'user', blocks: textBlocks(message.content) };
      const blocks = message.content.flatMap((part, j): NativeContentBlock[] =>
        part.type === 'text'
          ? textBlocks(part.text)
          : [imageBlockOfUrl(part.image_url.url, `messages.${i}.content.${j}.image_url.url`)],
      );
      return { role: 'user', blocks };
    }
    case 'assistant': {
      const content = message.content ?? '';
      const text =
        typeof content === 'string' ? content : content.map((p) => (p.type === 'text' ? p.text : p.refusal)).join('');
      const calls = (message.tool_calls ?? []).map((call, k): NativeContentBlock => ({
        type: 'tool_use',
        id: call.id,
        name: call.function.name,
        input: parseArguments(call.function.arguments, `messages.${i}.tool_calls.${k}.function.arguments`),
      }));
      return { role: 'assistant', blocks: [...textBlocks(text), ...calls] };
    }
    case 'tool':
      return {
        role: 'user',
        blocks: [{ type: 'tool_result', tool_use_id: message.tool_call_id, content: textOf(message.content) }],
      };
    default:
      // system and developer are taken out before this point
      return { role: 'user', blocks: [] };
  }
}

export function compatMessagesToNative(messages: CompatMessage[]): NativeConversation {
  const system: string[] = [];
  const out: Array<{ role: NativeRole; content: NativeContentBlock[] }> = [];
  const warnings: string[] = [];

  messages.forEach((message, i) => {
    if (message.role === 'system' || message.role === 'developer') {
      const text = textOf(message.content);
      if (text !== '') system.push(text);
      return;
    }
    const { role, blocks } = blocksOf(message, i);
    if (blocks.length === 0) {
      warnings.push(`messages.${i} (${message.role}) has no content and was left out`);
      return;
    }
    const last = out.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  });

  if (out.length === 0) throw invalidField('messages', 'must contain at least one user or assistant message');
  return { system: system.length > 0 ? system.join('\n\n') : undefined, messages: out, warnings };
}
