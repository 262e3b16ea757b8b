// A native request -> what the assistant CLI is given: command-line flags (model, tool rules, isolation), the
// system prompt (written to an owner-only file by the backend, never an argument), the per-process environment
// (output limit, thinking budget, no side traffic) and the lines written on its stdin. Pure; tested beside it.
//
// stdin carries user messages in the CLI's stream-json input format (`--input-format stream-json` in
// profile.cli.printArgs). The CLI keeps reading such lines after each answer, which is what live conversations use
// (docs/tool-mode.md "Live conversations"): a fresh process gets `stdin`, a live one continuing a conversation gets
// only `turn` (the newest user message). A user message is its text, or its text and image blocks when it has
// images.
//
// A fresh process gets the WHOLE conversation (docs/lessons.md "Streams and clients": a peer sent only the last user
// message and lost the history), in one of two ways (docs/tool-mode.md "A fresh start"):
// - as structured messages: the earlier turns in a session transcript of the CLI's own format (`transcript`, which
//   the backend writes to an owner-only file given with profile.cli.resumeFlag; native-messages-to-cli-transcript.ts)
//   and the newest user message on stdin. Used whenever the newest message is a plain user turn;
// - otherwise (its newest message carries tool results, or is an assistant prefill, which the CLI cannot resume) as
//   text in one user message. The text encoding:
// - a conversation of one user message is sent as that message's text, byte for byte;
// - otherwise the earlier turns come first as a transcript, one `<turn role="...">` element per message, oldest
//   first, then the latest user message in a `<turn role="user">` of its own after a line that asks the model to
//   answer it; a conversation that ends with an assistant message (a prefill) asks the model to continue that
//   message instead;
// - text is copied verbatim except that a literal `</turn>` inside a message is written `<\/turn>` and a literal
//   `<turn ...>` is written `<\turn ...>`, so a message can neither close its own element nor open one of another
//   role (a tool result holding `<turn role="user">` stays inside the tool result);
// - tool_use and tool_result blocks of earlier turns are written as readable `[tool call ...]` / `[tool result ...]`
//   lines; thinking blocks are left out (the model's own scratch work, and the CLI could not verify signatures);
// - an image can only be given as a block of a user message (the transcript, or the newest message): in the text
//   encoding (an image in a tool result of the newest message) it is refused (400) with a pointer to direct mode.
// The system prompt is the client's, or profile.cli.defaultSystemPrompt when it sent none (never the CLI's own
// 27.7 KB default, docs/tool-mode.md "Lean by default").

import { invalidField } from '../../../errors.js';
import type { NativeContentBlock, NativeMessageParam, NativeRequest } from '../../../formats/native.js';
import type { Profile } from '../../../profile.js';
import { hasBlock, messagesToCliTranscript, resumable } from './native-messages-to-cli-transcript.js';
import { schemaLine, thinkingBudget, thinkingFlags } from './native-thinking-to-cli.js';
import { cliToolName } from './native-tools-to-mcp.js';

/** Linux refuses a single argument over 128 KiB (MAX_ARG_STRLEN); stay clearly below it. */
export const maxSystemPromptChars = 100_000;

/** Model ids are short; a longer one would only fail the spawn (E2BIG) and look like a missing CLI. */
const maxModelChars = 256;

export interface CliInputOptions {
  profile: Profile;
  /**
   * The built-in tools offered, and the owner-only settings file holding their rules (tool-rules-to-cli-permissions.ts,
   * docs/security.md "The CLI's own tools"); absent or empty: no built-in tool.
   */
  builtInTools?: { tools: string[]; settingsFile: string };
  /** CLI_USER_SETUP: load the user's own settings sources, MCP servers and session history (default false). */
  userSetup?: boolean;
}

export interface CliInput {
  /** Flags; the system prompt file's flag and path are added by the backend when it writes the file. */
  args: string[];
  /** The system prompt the file holds. */
  systemPrompt: string;
  /**
   * A fresh process's first stdin line: the newest user message after a `transcript`, otherwise one user message
   * holding the whole conversation as text.
   */
  stdin: string;
  /** The earlier turns as the CLI's session transcript (JSONL), for a file given with profile.cli.resumeFlag. */
  transcript?: string;
  /**
   * The stdin line a process reads before its first turn: the request's JSON schema (native-thinking-to-cli.ts
   * schemaLine), spawn-time like a flag, so part of the spawn key.
   */
  initLine?: string;
  /** The newest user message alone as a line, for a live conversation it continues; undefined after a prefill. */
  turn?: string;
  /**
   * Environment variables for this request's child: the output limit and the thinking budget, which the CLI takes
   * only this way, and the switch that turns its side traffic off.
   */
  env: Record<string, string>;
}

function escapeTurn(text: string): string {
  // Both tags: a message (a tool result above all) must neither close its own element nor open one of another role.
  return text.replace(/<(\/?)turn(?=[\s>/])/gi, (m, slash: string) => `<\\${slash}${m.slice(1 + slash.length)}`);
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
          : (block.content ?? [])
              .map((b, j) => (b.type === 'text' ? b.text : imageRefused(`${field}.content.${j}`)))
              .join('');
      return `[tool result for ${block.tool_use_id}${block.is_error ? ' (error)' : ''}: ${content}]`;
    }
    case 'image':
      return imageRefused(field);
    case 'document':
      throw invalidField(
        field,
        'a document cannot be passed to the assistant CLI as text',
        `Invalid request: ${field}: a document in this turn cannot be passed to the assistant CLI as text; send it in the newest user message, or use direct mode`,
      );
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
export function cliUserMessageLine(prompt: string | NativeContentBlock[]): string {
  return `${JSON.stringify({ type: 'user', message: { role: 'user', content: prompt } })}\n`;
}

/**
 * A user message as the CLI's next turn: its text (blocks joined as `messageText` joins them), or, when it holds
 * images or documents, its text, image and document blocks in order (the CLI passes them on to the provider as they
 * are, title, context and citations included: recorded, test/fixtures/cli-recordings/document-upstream.json).
 * Throws for an image in a tool result, which the text of a turn cannot carry.
 */
export function cliUserTurnLine(message: NativeMessageParam, i: number): string {
  if (typeof message.content !== 'string' && (hasBlock(message, 'image') || hasBlock(message, 'document'))) {
    const blocks = message.content.flatMap((b, j): NativeContentBlock[] => {
      if (b.type === 'image') return [{ type: 'image', source: b.source }];
      if (b.type === 'document') {
        const { cache_control: _mark, ...document } = b;
        return [document];
      }
      const text = blockText(b, `messages.${i}.content.${j}`);
      return text === undefined || text === '' ? [] : [{ type: 'text', text }];
    });
    return cliUserMessageLine(blocks);
  }
  return cliUserMessageLine(messageText(message, i));
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
  if (model.includes('\0'))
    throw invalidField('model', 'must not contain a NUL character (it is passed to the CLI on its command line)');
  if (model.length > maxModelChars)
    throw invalidField('model', `must be at most ${maxModelChars} characters in tool mode`);
}

/**
 * Flags after profile.cli.printArgs and the stdin text. The model arrives resolved (the provider's id, which the
 * real CLI knows, or a CLI alias such as "sonnet"). No permission-bypass flag is ever added: the CLI's own
 * permission rules plus the settings file of the configured tool rules apply.
 */
export function nativeRequestToCliInput(req: NativeRequest, options: CliInputOptions): CliInput {
  const { cli } = options.profile;
  checkCliModelArgument(req.model);
  // The model was resolved once by the route (modes/tool/prepare.ts): a provider id, or one of the CLI's own aliases.
  // The effort is a flag and the JSON schema a first stdin line, both part of the spawn key (modes/tool/engine/spec.ts):
  // a live conversation or a warm process is taken only by a request that asks for the same.
  const args = [...cli.printArgs, cli.modelFlag, req.model, ...thinkingFlags(req, options.profile)];
  const initLine = schemaLine(req, options.profile);
  const system = systemText(req.system);
  if (system !== undefined) {
    // The same limits as when the prompt was an argument (a prompt re-sent on every turn should stay small); a NUL
    // would end the text early for the CLI reading the file.
    if (system.length > maxSystemPromptChars)
      throw invalidField('system', `must be at most ${maxSystemPromptChars} characters in tool mode`);
    if (system.includes('\0'))
      throw invalidField(
        'system',
        'must not contain a NUL character in tool mode (it is given to the CLI as a text file)',
      );
  }
  if (!options.userSetup) {
    const iso = cli.isolation;
    args.push(
      iso.settingSourcesFlag,
      '',
      iso.strictMcpConfigFlag,
      iso.mcpConfigFlag,
      iso.emptyMcpConfig,
      iso.noSessionPersistenceFlag,
    );
  }
  // Lean by default: no built-in tool is offered unless the user allows some, and then exactly those, under the rules
  // of the settings file (never on the command line), confined to the working directory.
  const builtIn = options.builtInTools;
  if (builtIn && builtIn.tools.length > 0) {
    args.push(cli.toolsFlag, builtIn.tools.join(','), cli.permissions.settingsFlag, builtIn.settingsFile);
    // Restricted mode confines the file tools to the working directory whatever a rule allows, but also ignores the
    // user's own settings, which CLI_USER_SETUP asks for; the deny rules of the settings file apply either way.
    if (!options.userSetup) args.push(cli.permissions.restrictedFlag);
  } else {
    args.push(cli.toolsFlag, '');
  }
  const last = req.messages.length - 1;
  const turn = req.messages[last].role === 'user' ? cliUserTurnLine(req.messages[last], last) : undefined;
  let stdin: string;
  let transcript: string | undefined;
  if (turn !== undefined && (last === 0 || (cli.resumeFlag !== '' && resumable(req)))) {
    const carries = hasBlock(req.messages[last], 'image') || hasBlock(req.messages[last], 'document');
    if (!carries && messageText(req.messages[last], last).trim() === '')
      throw invalidField('messages', 'must contain some text for the assistant CLI to answer');
    // The CLI knows the client's tools by their MCP names; a live process's history holds those names too.
    const toolName = (name: string) => cliToolName(cli.clientTools, name);
    if (last > 0) transcript = messagesToCliTranscript(req.messages.slice(0, last), { toolName, model: req.model });
    stdin = turn;
  } else {
    const prompt = conversationToPrompt(req.messages);
    if (prompt.trim() === '') throw invalidField('messages', 'must contain some text for the assistant CLI to answer');
    stdin = cliUserMessageLine(prompt);
  }
  // max_tokens and the thinking budget reach the provider through the CLI's environment (docs/tool-mode.md).
  const env: Record<string, string> = {
    [options.profile.clientSupport.maxOutputTokensEnv]: String(req.max_tokens),
    [cli.maxThinkingTokensEnv]: String(thinkingBudget(req, options.profile.api.minThinkingBudget)),
  };
  if (!options.userSetup) {
    env[cli.isolation.nonEssentialTrafficEnv] = '1';
    env[cli.isolation.noAutoMemoryEnv] = '1';
  }
  return {
    args,
    systemPrompt: system ?? cli.defaultSystemPrompt,
    stdin,
    transcript,
    turn,
    env,
    ...(initLine ? { initLine } : {}),
  };
}
