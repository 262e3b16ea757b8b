// A validated compatible-format chat request -> the native request (SPEC.md §2.2 "Parameter translation").
// Lossy steps never fail: they add a warning (for the log and the response header) and the field name to
// `ignored`. Only a request we cannot express at all (bad tool-call JSON, an unusable image URL) is a 400.

import type { CompatChatRequest } from './schema.js';
import type {
  NativeMessagesRequest,
  NativeOutputFormat,
  NativeRequest,
  NativeTool,
  NativeToolChoice,
} from '../native.js';
import type { ReasoningEffort } from '../../profile.js';
import { compatMessagesToNative } from './compat-messages-to-native.js';

interface CompatRequestToNativeOptions {
  /** max_tokens when the client sends neither max_completion_tokens nor max_tokens (native requires one; direct
   * mode sets the model's own: models/fit-request.ts). */
  defaultMaxTokens: number;
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

/** Accepted and without a provider equivalent (SPEC.md §2.2: user "Ignored"). */
const silentlyIgnored = ['user', 'seed', 'logit_bias', 'top_logprobs'] as const;

function toolsOf(body: CompatChatRequest): NativeTool[] | undefined {
  if (!body.tools || body.tools.length === 0) return undefined;
  return body.tools.map(({ function: fn }) => ({
    name: fn.name,
    ...(fn.description ? { description: fn.description } : {}),
    // The native format requires an input schema; a function without parameters takes an empty object.
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
    ...(fn.strict ? { strict: true } : {}),
  }));
}

function toolChoiceOf(body: CompatChatRequest): NativeToolChoice | undefined {
  const choice = body.tool_choice;
  const noParallel = body.parallel_tool_calls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...noParallel };
  if (typeof choice === 'object' && choice !== null) return { type: 'tool', name: choice.function.name, ...noParallel };
  if (choice === 'auto' || body.parallel_tool_calls === false) return { type: 'auto', ...noParallel };
  return undefined;
}

/** A JSON output format as the compatible and Responses formats both describe it. */
type JsonFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string | null; description?: string | null; schema?: Record<string, unknown> | null };

/** `json_object` asks for any object: the schema of one, so the model's own structured outputs can keep it. */
const anyObject = { type: 'object', additionalProperties: true };

/** A client's JSON output format -> the native output_config.format (docs/models.md "JSON output"). */
export function outputFormatOf(format: JsonFormat): NativeOutputFormat {
  return { type: 'json_schema', schema: (format.type === 'json_schema' ? format.schema : undefined) ?? anyObject };
}

/**
 * A reasoning effort -> the intent in native fields: adaptive thinking with output_config.effort, or no thinking for
 * `none` and `minimal`. The mode fits it to the model (models/fit-request.ts: the nearest level, a budget, or
 * nothing).
 */
export function applyEffortIntent(request: NativeRequest, effort: ReasoningEffort): void {
  if (effort === 'none' || effort === 'minimal') {
    request.thinking = { type: 'disabled' };
    return;
  }
  request.thinking = { type: 'adaptive' };
  addOutputConfig(request, { effort });
}

/** Adds an output_config field to a request, keeping the others. */
export function addOutputConfig(request: NativeRequest, config: NativeRequest['output_config']): void {
  if (config) request.output_config = { ...request.output_config, ...config };
}

function stopSequencesOf(stop: CompatChatRequest['stop'], warnings: string[]): string[] | undefined {
  if (stop === null || stop === undefined) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  // The provider refuses whitespace-only stop sequences (a common "\n" from clients) with a 400.
  const kept = list.filter((s) => s.trim() !== '');
  if (kept.length < list.length)
    warnings.push('stop sequences made only of whitespace are not supported and were dropped');
  return kept.length > 0 ? kept : undefined;
}

export function compatRequestToNative(
  body: CompatChatRequest,
  options: CompatRequestToNativeOptions,
): CompatRequestToNativeResult {
  const warnings: string[] = [];
  const ignored: string[] = [];
  const conversation = compatMessagesToNative(body.messages);
  warnings.push(...conversation.warnings);

  const request: NativeMessagesRequest = {
    model: body.model,
    messages: conversation.messages,
    ...(conversation.system ? { system: conversation.system } : {}),
    // max_completion_tokens is the newer name of the same limit, so it wins (SPEC.md §2.2: max_tokens unchanged).
    max_tokens: body.max_completion_tokens ?? body.max_tokens ?? options.defaultMaxTokens,
  };

  if (body.temperature !== null && body.temperature !== undefined) {
    // SPEC.md §2.2, §8: 0.0 to 2.0 accepted, clamped into 0.0 to 1.0 when forwarded.
    request.temperature = Math.min(body.temperature, 1);
    if (body.temperature > 1)
      warnings.push(`temperature ${body.temperature} was clamped to 1 (the provider accepts 0 to 1)`);
  }
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

  // SPEC.md §2.2: the penalties are ignored, and a warning is logged.
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
  for (const [key, value] of Object.entries(body)) {
    if (!handled.has(key) && value !== null && value !== undefined) ignored.push(key);
  }
  return { request, warnings, ignored };
}
