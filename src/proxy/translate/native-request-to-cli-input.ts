// A native request -> what the assistant CLI is given: command-line flags (model, system prompt, tool rules) and the
// line written on its stdin. Pure; tested beside it.
//
// stdin carries one user message in the CLI's stream-json input format (`--input-format stream-json` in
// profile.cli.printArgs): a warm CLI waits for it without being primed, and finishes more of its start-up before it
// comes (docs/benchmarks.md "Warm CLI pool").
//
// The CLI's print mode takes one prompt, not a message list, so the WHOLE conversation is encoded into that prompt
// (PEERS.md: a peer sent only the last user message and lost the history). The encoding (docs/tool-mode.md):
// - a conversation of one user message is sent as that message's text, byte for byte;
// - otherwise the earlier turns come first as a transcript, one `<turn role="...">` element per message, oldest
//   first, then the latest user message in a `<turn role="user">` of its own after a line that asks the model to
//   answer it; a conversation that ends with an assistant message (a prefill) asks the model to continue that
//   message instead;
// - text is copied verbatim except that a literal `</turn>` inside a message is written `<\/turn>`, so a message
//   cannot close its own element;
// - tool_use and tool_result blocks of earlier turns are written as readable `[tool call ...]` / `[tool result ...]`
//   lines; thinking blocks are left out (the model's own scratch work, and the CLI could not verify signatures);
// - images cannot be given to the CLI's text input: they are refused (400) with a pointer to direct mode.
// The system prompt goes in the CLI's system-prompt flag, replacing the CLI's default prompt only when the client
// sent one.

import { invalidField } from '../errors.js';
import type { NativeContentBlock, NativeMessageParam, NativeRequest } from '../formats/native.js';
import type { Profile } from '../profile.js';

/** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); stay clearly below it. */
export const maxSystemPromptChars = 100_000;

/** Model ids are short; a longer one would only fail the spawn (E2BIG) and look like a missing CLI. */
export const maxModelChars = 256;

export interface CliInputOptions {
  profile: Profile;
  allowedTools: string[];
  disallowedTools: string[];
}

export interface CliInput {
  args: string[];
  /** One stream-json user message line holding the prompt. */
  stdin: string;
  /** Environment variables for this request's child: the output limit, which the CLI takes only this way. */
  env: Record<string, string>;
}

function escapeTurn(text: string): string {
  return text.replace(/<\/turn>/gi, (m) => `<\\/${m.slice(2)}`);
}

function blockText(block: NativeContentBlock, field: string): string | undefined {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return `[tool call ${block.name} (id ${block.id}) with input ${JSON.stringify(block.input ?? {})}]`;
    case 'tool_result': {
      const content =
        typeof block.content === 'string'
          ? block.content
          : (block.content ?? []).map((b, j) => (b.type === 'text' ? b.text : imageRefused(`${field}.content.${j}`))).join('');
      return `[tool result for ${block.tool_use_id}${block.is_error ? ' (error)' : ''}: ${content}]`;
    }
    case 'image':
      return imageRefused(field);
    default:
      // thinking and redacted_thinking: left out (see above)
      return undefined;
  }
}

function imageRefused(field: string): never {
  throw invalidField(
    field,
    'images are not supported in tool mode',
    `Invalid request: ${field}: images cannot be passed to the assistant CLI in tool mode; use direct mode (/api/v1/messages or /api/v1/chat/completions) for images`,
  );
}

/** The text of one message, blocks joined by blank lines. */
export function messageText(message: NativeMessageParam, i: number): string {
  if (typeof message.content === 'string') return message.content;
  return message.content
    .map((b, j) => blockText(b, `messages.${i}.content.${j}`))
    .filter((t): t is string => t !== undefined && t !== '')
    .join('\n\n');
}

function turn(role: string, text: string): string {
  return `<turn role="${role}">\n${escapeTurn(text)}\n</turn>`;
}

/** The prompt as the one user message of the CLI's stream-json input, a line of its own. */
export function cliUserMessageLine(prompt: string): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: prompt } })}\n`;
}

/** The prompt for the CLI's stdin: the whole conversation (see the encoding at the top of this file). */
export function conversationToPrompt(messages: NativeMessageParam[]): string {
  const texts = messages.map((m, i) => messageText(m, i));
  if (messages.length === 1 && messages[0].role === 'user') return texts[0];
  const last = messages.length - 1;
  const earlier = messages.slice(0, last).map((m, i) => turn(m.role, texts[i]));
  const parts = ['The conversation so far, oldest turn first:', ...earlier];
  if (messages[last].role === 'user') {
    parts.push('Reply as the assistant to the latest user turn:', turn('user', texts[last]));
  } else {
    parts.push(
      'Continue the assistant turn below from exactly where it stops, without repeating it:',
      turn('assistant', texts[last]),
    );
  }
  return parts.join('\n\n');
}

function systemText(system: NativeRequest['system']): string | undefined {
  if (system === undefined) return undefined;
  const text = typeof system === 'string' ? system : system.map((b) => b.text).join('\n\n');
  return text === '' ? undefined : text;
}

/** A model id goes to the CLI as a command-line argument: no NUL, and short enough (a 400 naming the field). */
export function checkCliModelArgument(model: string): void {
  if (model.includes('\0')) throw invalidField('model', 'must not contain a NUL character (it is passed to the CLI on its command line)');
  if (model.length > maxModelChars) throw invalidField('model', `must be at most ${maxModelChars} characters in tool mode`);
}

/**
 * Flags after profile.cli.printArgs and the stdin text. The model arrives resolved (the provider's id, which the
 * real CLI knows, or a CLI alias such as "sonnet"). No permission-bypass flag is ever added: the CLI's own
 * permission rules plus the configured tool lists apply.
 */
export function nativeRequestToCliInput(req: NativeRequest, options: CliInputOptions): CliInput {
  const { cli } = options.profile;
  checkCliModelArgument(req.model);
  // The model was resolved once by the route (routes/tool.ts): a provider id, or one of the CLI's own aliases.
  const args = [...cli.printArgs, cli.modelFlag, req.model];
  const system = systemText(req.system);
  if (system !== undefined) {
    if (system.length > maxSystemPromptChars) {
      throw invalidField('system', `must be at most ${maxSystemPromptChars} characters in tool mode (it is passed to the CLI on its command line)`);
    }
    // A command-line argument cannot hold NUL (the spawn would throw); the message text goes on stdin and may.
    if (system.includes('\0')) throw invalidField('system', 'must not contain a NUL character in tool mode (it is passed to the CLI on its command line)');
    args.push(cli.systemPromptFlag, system);
  }
  if (options.allowedTools.length > 0) args.push(cli.allowedToolsFlag, options.allowedTools.join(','));
  if (options.disallowedTools.length > 0) args.push(cli.disallowedToolsFlag, options.disallowedTools.join(','));
  const prompt = conversationToPrompt(req.messages);
  if (prompt.trim() === '') throw invalidField('messages', 'must contain some text for the assistant CLI to answer');
  // max_tokens reaches the provider through the CLI's output-limit variable (profile.clientSupport; docs/tool-mode.md).
  const env = { [options.profile.clientSupport.maxOutputTokensEnv]: String(req.max_tokens) };
  return { args, stdin: cliUserMessageLine(prompt), env };
}
