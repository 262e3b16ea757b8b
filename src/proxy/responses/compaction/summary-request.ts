// The request that makes a compaction's summary (docs/compaction.md "The summary"): the conversation as the client
// sent it, and one more user turn asking the model to summarise it. One request, through the same mode as any
// other, billed and recorded like any other (its ledger row's purpose is `compaction`). Pure.
//
// Two ways to keep the model from calling a tool instead of writing the summary, chosen by the mode
// (Mode.summaryKeepsTools):
// - keep the tools and the tool choice as they were (direct mode): the request then shares its whole prefix with the
//   conversation's last request, and the provider reads it from its prompt cache (a change of tool_choice would
//   make it write every message again: docs/direct-mode.md "The prompt cache"). The instruction asks for text only;
//   a forced tool choice becomes `auto`, since a forced call cannot be a summary;
// - offer no tools (`tool_choice: none`, tool mode): the CLI then runs it as a plain chat, from a fresh start.

import type { NativeContentBlock, NativeRequest } from '../../formats/native.js';

/** What the summary must keep: what an agent needs to go on without the conversation it stands for. */
export const summaryInstruction = [
  'Your context window is nearly full, so this conversation is being compacted: everything above will be replaced',
  'by the summary you write now. Do not call any tool and do not go on with the task. Write the summary as plain',
  'text, for yourself, so that you can go on with the task from it alone. Keep:',
  '- the task, and the user’s own words where they matter (requests, constraints, preferences), quoted;',
  '- the decisions taken and why;',
  '- every file read, created or changed, with what was learnt or done in it;',
  '- commands run and their results that still matter, errors met and how they were solved;',
  '- what is done, what is in progress, and the next steps, in order.',
  'Leave out what no longer matters. Be complete but brief.',
].join('\n');

/** The summary request of `request` (already parsed into the native form). */
export function summaryRequest(request: NativeRequest, keepTools: boolean): NativeRequest {
  const ask: NativeContentBlock = { type: 'text', text: summaryInstruction };
  const messages = [...request.messages];
  const last = messages.at(-1);
  // The instruction joins the last user message (tool results, say) rather than following it: roles alternate.
  if (last?.role === 'user') {
    const content: NativeContentBlock[] =
      typeof last.content === 'string' ? [{ type: 'text', text: last.content }] : [...last.content];
    messages[messages.length - 1] = { role: 'user', content: [...content, ask] };
  } else messages.push({ role: 'user', content: [ask] });
  const summary: NativeRequest = { ...request, messages };
  // A JSON format would constrain the summary to the client's schema.
  if (summary.output_config?.format) {
    const { format: _format, ...config } = summary.output_config;
    summary.output_config = config;
  }
  if (!keepTools) {
    if (summary.tools?.length) summary.tool_choice = { type: 'none' };
  } else if (summary.tool_choice && summary.tool_choice.type !== 'auto' && summary.tool_choice.type !== 'none') {
    summary.tool_choice = { type: 'auto' };
  }
  return summary;
}

/** The summary a whole message holds: its text, without the tool calls a model may have made anyway. */
export function summaryText(blocks: ReadonlyArray<{ type: string; text?: string }>): string {
  return blocks
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text)
    .join('')
    .trim();
}
