// Compatible-format messages -> the native system prompt and message list. The whole conversation is kept
// (docs/lessons.md "Streams and clients": a peer that sent only the last user message lost the system prompt, the
// history and the images). Rules, each because of how the native format differs (the shared ones in
// formats/conversation-builder.ts):
// - system and developer messages, wherever they stand, become the one native `system` (joined by blank lines);
// - a `file` part becomes a native document (formats/documents.ts);
// - `tool` messages become user tool_result blocks, so adjacent ones end up in one user message;
// - consecutive messages of the same native role are merged, because the native format wants them alternating;
// - a client's cache marks (`cache_control` on a user, tool, system or developer part) stay on the block the part
//   becomes, so direct mode counts them and adds its own only within the provider's limit (modes/direct/cache-marks.ts);
// - assistant tool_calls become tool_use blocks with their JSON arguments parsed (invalid JSON is the client's
//   error: 400 on that field).

import type { CompatMessage } from './schema.js';
import type { DocumentRules } from '../../profile.js';
import { documentOfFile } from '../documents.js';
import type { NativeContentBlock, NativeMessageParam, NativeRole } from '../native.js';
import {
  cacheMarkOf,
  ConversationBuilder,
  imageBlockOfUrl,
  markedLike,
  parseToolArguments,
  textBlocks,
  textOf,
} from '../conversation-builder.js';

interface NativeConversation {
  system?: ReturnType<ConversationBuilder['systemPrompt']>;
  messages: NativeMessageParam[];
  warnings: string[];
}

/** A tool call's arguments must be a JSON object (the native tool_use input is one). */
const argumentRules = { invalidJson: 'must be valid JSON', notAnObject: 'must be a JSON object' };

function blocksOf(
  message: CompatMessage,
  i: number,
  rules: DocumentRules,
): { role: NativeRole; blocks: NativeContentBlock[] } {
  switch (message.role) {
    case 'user': {
      if (typeof message.content === 'string') return { role: 'user', blocks: textBlocks(message.content) };
      const blocks = message.content.flatMap((part, j): NativeContentBlock[] =>
        (part.type === 'text'
          ? textBlocks(part.text)
          : part.type === 'file'
            ? [documentOfFile({ ...part.file, file_url: undefined }, `messages.${i}.content.${j}.file`, rules)]
            : [imageBlockOfUrl(part.image_url.url, `messages.${i}.content.${j}.image_url.url`)]
        ).map((block) => markedLike(block, part)),
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
        input: parseToolArguments(
          call.function.arguments,
          `messages.${i}.tool_calls.${k}.function.arguments`,
          argumentRules,
        ),
      }));
      return { role: 'assistant', blocks: [...textBlocks(text), ...calls] };
    }
    case 'tool': {
      const result: NativeContentBlock = {
        type: 'tool_result',
        tool_use_id: message.tool_call_id,
        content: textOf(message.content),
      };
      const marked = typeof message.content === 'string' ? undefined : message.content.findLast(cacheMarkOf);
      return { role: 'user', blocks: [marked ? markedLike(result, marked) : result] };
    }
    default:
      // system and developer are taken out before this point
      return { role: 'user', blocks: [] };
  }
}

export function compatMessagesToNative(messages: CompatMessage[], rules: DocumentRules): NativeConversation {
  const warnings: string[] = [];
  const conversation = new ConversationBuilder(warnings);
  messages.forEach((message, i) => {
    if (message.role === 'system' || message.role === 'developer') {
      const marked = typeof message.content === 'string' ? undefined : message.content.findLast(cacheMarkOf);
      conversation.addSystem(textOf(message.content), marked && cacheMarkOf(marked));
      return;
    }
    const { role, blocks } = blocksOf(message, i, rules);
    conversation.pushOrWarn(role, blocks, `messages.${i} (${message.role})`);
  });
  return { system: conversation.systemPrompt(), messages: conversation.nonEmptyMessages(), warnings };
}
