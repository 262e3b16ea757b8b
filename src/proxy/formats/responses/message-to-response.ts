// A whole native message -> the Responses answer (the response object a non-streaming client gets). Blocks become
// output items in order: thinking a reasoning item (its signature as encrypted_content, so a client that replays
// it gives the provider its thinking back), text one message item, tool_use a function_call or, for a freeform
// tool, a custom_tool_call item. Redacted thinking has no readable form and is left out.

import type { NativeMessage } from '../native.js';
import type { AnswerMeta } from '../format.js';
import type { ResponsesAnswerOptions } from './request-to-native.js';
import { annotationsOf, baseResponse, itemId, responsesUsage, statusOf, toolCallItem } from './response-parts.js';
import type { ResponsesOutputItem, ResponsesResponse } from './schema.js';

export function nativeMessageToResponse(
  message: NativeMessage,
  id: string,
  meta: AnswerMeta,
  options: ResponsesAnswerOptions,
): ResponsesResponse {
  const output: ResponsesOutputItem[] = [];
  let reasoned = false;
  for (const block of message.content) {
    if (block.type === 'thinking') {
      reasoned = true;
      output.push({
        type: 'reasoning',
        id: itemId('rs'),
        summary: block.thinking === '' ? [] : [{ type: 'summary_text', text: block.thinking }],
        ...(block.signature ? { encrypted_content: block.signature } : {}),
      });
    } else if (block.type === 'redacted_thinking') {
      reasoned = true;
    } else if (block.type === 'text') {
      const last = output.at(-1);
      // Adjacent text blocks are one message, as the compatible format joins them; a block's citations are
      // annotations at the offset where its text starts.
      if (last?.type === 'message') {
        const part = last.content[0];
        part.annotations.push(...annotationsOf(block.citations, part.text.length, block.text.length));
        part.text += block.text;
      } else
        output.push({
          type: 'message',
          id: itemId('msg'),
          status: 'completed',
          role: 'assistant',
          content: [
            {
              type: 'output_text',
              text: block.text,
              annotations: annotationsOf(block.citations, 0, block.text.length),
              logprobs: [],
            },
          ],
        });
    } else if (block.type === 'tool_use') {
      output.push(toolCallItem(block, options, itemId(options.customTools.has(block.name) ? 'ctc' : 'fc')));
    }
  }
  const { status, incomplete_details } = statusOf(message.stop_reason);
  if (status === 'incomplete') for (const item of output) if (item.type === 'message') item.status = 'incomplete';
  return {
    ...baseResponse(id, meta, options),
    status,
    incomplete_details,
    output,
    usage: responsesUsage(message.usage, reasoned),
  };
}
