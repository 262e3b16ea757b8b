// A validated compatible-format chat request -> the native request (docs/interface.md "Parameter translation").
// Lossy steps never fail: they add a warning (for the log and the response header) and the field name to
// `ignored`. Only a request we cannot express at all (bad tool-call JSON, an unusable image URL) is a 400.

import type { CompatChatRequest } from './schema.js';
import type { DocumentRules } from '../../profile.js';
import type { NativeMessagesRequest, NativeTool, NativeToolChoice } from '../native.js';
import { compatMessagesToNative } from './compat-messages-to-native.js';
import {
  addOutputConfig,
  applyEffortIntent,
  applyTemperature,
  nativeToolChoiceOf,
  nativeToolOf,
  outputFormatOf,
  stopSequencesOf,
  unreadKeys,
} from '../request-rules.js';

interface CompatRequestToNativeOptions {
  /** max_tokens when the client sends neither max_completion_tokens nor max_tokens (native requires one; direct
   * mode sets the model's own: models/fit-to-model.ts). */
  defaultMaxTokens: number;
  /** What a `file` part may hold (profile.api.documents). */
  documents: DocumentRules;
}

interface CompatRequestToNativeResult {
  request: NativeMessagesRequest;
  /** Human-readable notes on lossy conversions. */
  warnings: string[];
  /** Names of request fields that were accepted but have no effect. */
  ignored: string[];
}

/** Fields this translation reads; anything else a client sends is reported in `ignored`. */
const handled = new Set([
  'model',
  'messages',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'stream',
  'stream_options',
  'stop',
  'presence_penalty',
  'frequency_penalty',
  'user',
  'n',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'seed',
  'logprobs',
  'top_logprobs',
  'logit_bias',
  'reasoning_effort',
]);

/** Accepted and without a provider equivalent (docs/interface.md "Parameter translation": user dropped). */
const silentlyIgnored = ['user', 'seed', 'logit_bias', 'top_logprobs'] as const;

function toolsOf(body: CompatChatRequest): NativeTool[] | undefined {
  if (!body.tools || body.tools.length === 0) return undefined;
  return body.tools.map(({ function: fn }) => nativeToolOf(fn));
}

function toolChoiceOf(body: CompatChatRequest): NativeToolChoice | undefined {
  const choice = body.tool_choice;
  const named = typeof choice === 'object' && choice !== null ? choice.function.name : undefined;
  return nativeToolChoiceOf(choice, named, body.parallel_tool_calls);
}

export function compatRequestToNative(
  body: CompatChatRequest,
  options: CompatRequestToNativeOptions,
): CompatRequestToNativeResult {
  const warnings: string[] = [];
  const ignored: string[] = [];
  const conversation = compatMessagesToNative(body.messages, options.documents);
  warnings.push(...conversation.warnings);

  const request: NativeMessagesRequest = {
    model: body.model,
    messages: conversation.messages,
    ...(conversation.system ? { system: conversation.system } : {}),
    // max_completion_tokens is the newer name of the same limit, so it wins (docs/interface.md "Parameter translation":
    // max_tokens unchanged).
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? options.defaultMaxTokens,
  };

  applyTemperature(request, body.temperature, 'temperature', warnings);
  if (body.top_p !== null && body.top_p !== undefined) request.top_p = body.top_p;
  const stop = stopSequencesOf(body.stop, warnings);
  if (stop) request.stop_sequences = stop;
  if (body.stream !== null && body.stream !== undefined) request.stream = body.stream;

  const tools = toolsOf(body);
  if (tools) {
    request.tools = tools;
    const choice = toolChoiceOf(body);
    if (choice) request.tool_choice = choice;
  } else if (body.tool_choice != null || body.parallel_tool_calls != null) {
    ignored.push(...(['tool_choice', 'parallel_tool_calls'] as const).filter((k) => body[k] != null));
  }

  // docs/interface.md "Parameter translation": the penalties are ignored, and a warning is logged.
  for (const key of ['presence_penalty', 'frequency_penalty'] as const) {
    if (body[key] !== null && body[key] !== undefined) {
      ignored.push(key);
      warnings.push(`${key} is not supported by the provider and was ignored`);
    }
  }
  if (body.logprobs) {
    ignored.push('logprobs');
    warnings.push('logprobs are not available from the provider and were not returned');
  }
  for (const key of silentlyIgnored) if (body[key] !== null && body[key] !== undefined) ignored.push(key);
  if (body.reasoning_effort != null) applyEffortIntent(request, body.reasoning_effort);
  const format = body.response_format;
  if (format && format.type !== 'text')
    addOutputConfig(request, {
      format: outputFormatOf(format.type === 'json_object' ? format : { type: 'json_schema', ...format.json_schema }),
    });
  ignored.push(...unreadKeys(body, handled));
  return { request, warnings, ignored };
}
