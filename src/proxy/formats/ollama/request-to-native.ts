// An Ollama chat or generate body -> one native request (docs/ollama.md "What is honoured"). Pure: no I/O, no
// context. Lossy steps never fail: they add a warning and name the field in `ignored` (the X-Proxy-Ignored-Params
// header, as on every route). Only what cannot be expressed at all (an image of an unknown type, tool arguments
// that are not an object) is a 400 naming the field.
// Rules, each because of how the native format differs:
// - system messages, wherever they stand, become the one native `system`;
// - tool messages become user tool_result blocks. Ollama's tool calls carry no id: the proxy adds one to each call
//   it answers (kept by clients that send the assistant message back as they got it); a result without one is
//   paired with the earliest unanswered call of the same name (`tool_name`), else the earliest unanswered call;
// - consecutive messages of the same native role are merged (the native format wants them alternating);
// - images are base64 without a media type: the type is read from the first bytes (PNG, JPEG, GIF, WebP).

import { invalidField } from '../../errors.js';
import type { NativeContentBlock, NativeImageBlock, NativeMessagesRequest, NativeRole, NativeTool } from '../native.js';
import { ConversationBuilder, imageBlockOfDataUrl, parseToolArguments, textBlocks } from '../conversation-builder.js';
import {
  addOutputConfig,
  applyEffortIntent,
  applyTemperature,
  nativeToolOf,
  outputFormatOf,
  stopSequencesOf,
  unreadKeys,
} from '../request-rules.js';
import type { OllamaChatRequest, OllamaGenerateRequest, OllamaMessage, OllamaOptions } from './schemas.js';

interface OllamaToNativeOptions {
  /** max_tokens when options.num_predict does not set one (the native format requires one; direct mode sets the
   * model's own). */
  defaultMaxTokens: number;
}

export interface OllamaToNativeResult {
  /** The request with the model as the client named it (tag and all); the route resolves it. */
  request: NativeMessagesRequest;
  stream: boolean;
  /** Fields accepted without effect, by their Ollama names (`options.seed`). */
  ignored: string[];
  warnings: string[];
  /** No prompt at all: Ollama's way to load a model; answered at once with done_reason "load". */
  loadOnly: boolean;
  /** options.num_predict set no limit: max_tokens is the default. */
  maxTokensDefaulted: boolean;
}

/** True when options.num_predict sets no limit of its own. */
function defaulted(options: OllamaOptions | null | undefined): boolean {
  return !(typeof options?.num_predict === 'number' && options.num_predict > 0);
}

/** Ollama names carry a tag; the proxy's models have one version each, so `:latest` names the same model. */
export function modelOfOllamaName(name: string): string {
  return name.endsWith(':latest') ? name.slice(0, -':latest'.length) : name;
}

const signatures: ReadonlyArray<readonly [prefix: string, mediaType: string]> = [
  ['iVBORw0KGgo', 'image/png'],
  ['/9j/', 'image/jpeg'],
  ['R0lGOD', 'image/gif'],
  ['UklGR', 'image/webp'],
];

/** A base64 image (or a data URL, which some clients send) -> a native image block. */
function imageBlockOfBase64(image: string, field: string): NativeImageBlock {
  const url = imageBlockOfDataUrl(image);
  if (url) return url;
  const data = image.trim();
  const known = signatures.find(([prefix]) => data.startsWith(prefix));
  if (!known) throw invalidField(field, 'must be a base64 PNG, JPEG, GIF or WebP image');
  return { type: 'image', source: { type: 'base64', media_type: known[1], data } };
}

function argumentsOf(
  args: Record<string, unknown> | string | null | undefined,
  field: string,
): Record<string, unknown> {
  if (args === null || args === undefined) return {};
  if (typeof args !== 'string') return args;
  // Ollama's arguments are an object; as text, anything else (invalid JSON included) is the same 400.
  return parseToolArguments(args, field, {
    invalidJson: 'must be a JSON object',
    notAnObject: 'must be a JSON object',
  }) as Record<string, unknown>;
}

interface OpenCall {
  id: string;
  name: string;
}

function conversationOf(messages: readonly OllamaMessage[], warnings: string[]): ConversationBuilder {
  const conversation = new ConversationBuilder(warnings);
  // Calls of the latest assistant message that no tool result has answered yet, in order.
  let open: OpenCall[] = [];
  messages.forEach((message, i) => {
    let role: NativeRole;
    let blocks: NativeContentBlock[];
    switch (message.role) {
      case 'system':
        conversation.addSystem(message.content);
        return;
      case 'user':
        role = 'user';
        blocks = [
          ...(message.images ?? []).map((image, j) => imageBlockOfBase64(image, `messages.${i}.images.${j}`)),
          ...textBlocks(message.content),
        ];
        break;
      case 'assistant': {
        role = 'assistant';
        open = (message.tool_calls ?? []).map((call, k) => ({
          id: call.id ?? `call_${i}_${k}`,
          name: call.function.name,
        }));
        const calls = (message.tool_calls ?? []).map((call, k): NativeContentBlock => ({
          type: 'tool_use',
          id: open[k].id,
          name: call.function.name,
          input: argumentsOf(call.function.arguments, `messages.${i}.tool_calls.${k}.function.arguments`),
        }));
        blocks = [...textBlocks(message.content), ...calls];
        break;
      }
      case 'tool': {
        role = 'user';
        const byId = message.tool_call_id ? open.findIndex((c) => c.id === message.tool_call_id) : -1;
        const byName = byId < 0 && message.tool_name ? open.findIndex((c) => c.name === message.tool_name) : -1;
        const at = byId >= 0 ? byId : byName >= 0 ? byName : open.length > 0 ? 0 : -1;
        if (at < 0) throw invalidField(`messages.${i}`, 'is a tool result with no tool call before it to answer');
        const [call] = open.splice(at, 1);
        blocks = [{ type: 'tool_result', tool_use_id: call.id, content: message.content ?? '' }];
        break;
      }
    }
    conversation.pushOrWarn(role, blocks, `messages.${i} (${message.role})`);
  });
  return conversation;
}

function toolsOf(tools: OllamaChatRequest['tools']): NativeTool[] | undefined {
  if (!tools || tools.length === 0) return undefined;
  // Ollama's tools have no `strict`: one a client adds is not read.
  return tools.map(({ function: fn }) =>
    nativeToolOf({ name: fn.name, description: fn.description, parameters: fn.parameters }),
  );
}

/** `format` ("json", or a JSON schema) -> output_config.format, fitted to the model by the mode (docs/models.md). */
function outputFormatOfOllama(format: OllamaChatRequest['format'], request: NativeMessagesRequest): void {
  if (format === null || format === undefined || format === '') return;
  addOutputConfig(request, {
    format: outputFormatOf(format === 'json' ? { type: 'json_object' } : { type: 'json_schema', schema: format }),
  });
}

const readOptions = new Set(['num_predict', 'temperature', 'top_p', 'top_k', 'stop']);

function applyOptions(
  options: OllamaOptions | null | undefined,
  request: NativeMessagesRequest,
  warnings: string[],
  ignored: string[],
): void {
  if (!options) return;
  // num_predict -1 (no limit) and -2 (fill the context) have no native equivalent: the default limit stands.
  if (options.num_predict !== null && options.num_predict !== undefined) {
    if (options.num_predict > 0) request.max_tokens = options.num_predict;
    else ignored.push('options.num_predict');
  }
  applyTemperature(request, options.temperature, 'options.temperature', warnings);
  if (options.top_p !== null && options.top_p !== undefined) request.top_p = options.top_p;
  if (options.top_k !== null && options.top_k !== undefined && options.top_k > 0) request.top_k = options.top_k;
  const stop = stopSequencesOf(options.stop, warnings);
  if (stop) request.stop_sequences = stop;
  ignored.push(...unreadKeys(options, readOptions, 'options.'));
}

/** `think` -> the intent of compatible reasoning_effort (true: medium); false asks for nothing, as Ollama's default. */
function applyThink(think: OllamaChatRequest['think'], request: NativeMessagesRequest): void {
  if (think === null || think === undefined || think === false) return;
  applyEffortIntent(request, think === true ? 'medium' : think);
}

const chatRead = new Set(['model', 'messages', 'stream', 'format', 'tools', 'think', 'options']);

export function ollamaChatToNative(body: OllamaChatRequest, options: OllamaToNativeOptions): OllamaToNativeResult {
  const warnings: string[] = [];
  const ignored: string[] = [];
  const messages = body.messages ?? [];
  const conversation = conversationOf(messages, warnings);
  const system = conversation.systemText();
  const request: NativeMessagesRequest = {
    model: body.model,
    messages: conversation.messages,
    ...(system ? { system } : {}),
    max_tokens: options.defaultMaxTokens,
  };
  outputFormatOfOllama(body.format, request);
  applyOptions(body.options, request, warnings, ignored);
  const tools = toolsOf(body.tools);
  if (tools) request.tools = tools;
  applyThink(body.think, request);
  ignored.push(...unreadKeys(body, chatRead));
  // Ollama loads a model on an empty chat; a conversation of system messages only has nothing to answer either.
  return {
    request,
    stream: body.stream !== false,
    ignored,
    warnings,
    loadOnly: conversation.messages.length === 0,
    maxTokensDefaulted: defaulted(body.options),
  };
}

const generateRead = new Set(['model', 'prompt', 'system', 'images', 'stream', 'format', 'think', 'options']);

export function ollamaGenerateToNative(
  body: OllamaGenerateRequest,
  options: OllamaToNativeOptions,
): OllamaToNativeResult {
  const warnings: string[] = [];
  const ignored: string[] = [];
  const blocks: NativeContentBlock[] = [
    ...(body.images ?? []).map((image, j) => imageBlockOfBase64(image, `images.${j}`)),
    ...textBlocks(body.prompt),
  ];
  const request: NativeMessagesRequest = {
    model: body.model,
    messages: blocks.length > 0 ? [{ role: 'user', content: blocks }] : [],
    ...(body.system ? { system: body.system } : {}),
    max_tokens: options.defaultMaxTokens,
  };
  outputFormatOfOllama(body.format, request);
  applyOptions(body.options, request, warnings, ignored);
  applyThink(body.think, request);
  // suffix (fill in the middle), raw, template and context (a local model's prompt machinery) have no equivalent.
  ignored.push(...unreadKeys(body, generateRead));
  return {
    request,
    stream: body.stream !== false,
    ignored,
    warnings,
    loadOnly: blocks.length === 0,
    maxTokensDefaulted: defaulted(body.options),
  };
}
