// The request rules the client formats' translators share (compat, Ollama, Responses; the body-key walk also the
// two native formats): each format reads its own field names and calls these for what the native request needs of
// them, so a rule and its warning are written once. Pure: no I/O; warnings go to the list the caller passes.

import type { ReasoningEffort } from '../profile.js';
import type { NativeOutputFormat, NativeRequest, NativeTool, NativeToolChoice } from './native.js';

/**
 * A temperature -> the request's (docs/interface.md "Limits": 0.0 to 2.0 accepted, clamped into 0.0 to 1.0 when
 * forwarded), with a warning naming the client's field (`name`) when it was clamped.
 */
export function applyTemperature(
  request: NativeRequest,
  value: number | null | undefined,
  name: string,
  warnings: string[],
): void {
  if (value === null || value === undefined) return;
  request.temperature = Math.min(value, 1);
  if (value > 1) warnings.push(`${name} ${value} was clamped to 1 (the provider accepts 0 to 1)`);
}

/** Stop sequences (one or a list) -> native stop_sequences, or undefined when none is left. */
export function stopSequencesOf(stop: string | string[] | null | undefined, warnings: string[]): string[] | undefined {
  if (stop === null || stop === undefined) return undefined;
  const list = typeof stop === 'string' ? [stop] : stop;
  // The provider refuses whitespace-only stop sequences (a common "\n" from clients) with a 400.
  const kept = list.filter((s) => s.trim() !== '');
  if (kept.length < list.length)
    warnings.push('stop sequences made only of whitespace are not supported and were dropped');
  return kept.length > 0 ? kept : undefined;
}

/** A function tool as the compatible, Ollama and Responses formats describe it. */
interface FunctionTool {
  name: string;
  description?: string | null;
  parameters?: Record<string, unknown> | null;
  strict?: boolean | null;
}

/** A client's function tool -> a native tool. */
export function nativeToolOf(fn: FunctionTool): NativeTool {
  return {
    name: fn.name,
    ...(fn.description ? { description: fn.description } : {}),
    // The native format requires an input schema; a function without parameters takes an empty object.
    input_schema: fn.parameters ?? { type: 'object', properties: {} },
    ...(fn.strict ? { strict: true } : {}),
  };
}

/**
 * A tool_choice -> the native one. `named` is the tool a choice object names (each format reads its own shape of
 * it); parallel_tool_calls false becomes disable_parallel_tool_use, and asks for `auto` when nothing else is chosen.
 */
export function nativeToolChoiceOf(
  choice: unknown,
  named: string | undefined,
  parallelToolCalls: boolean | null | undefined,
): NativeToolChoice | undefined {
  const noParallel = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  if (choice === 'none') return { type: 'none' };
  if (choice === 'required') return { type: 'any', ...noParallel };
  if (named !== undefined) return { type: 'tool', name: named, ...noParallel };
  if (choice === 'auto' || parallelToolCalls === false) return { type: 'auto', ...noParallel };
  return undefined;
}

/** A JSON output format as the compatible and Responses formats both describe it (Ollama's `format` maps onto it). */
type JsonFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name?: string | null; description?: string | null; schema?: Record<string, unknown> | null };

/** `json_object` asks for any object: the schema of one, so the model's own structured outputs can keep it. */
const anyObject = { type: 'object', additionalProperties: true };

/** A client's JSON output format -> the native output_config.format (docs/models.md "What the proxy does with each
 * field"). */
export function outputFormatOf(format: JsonFormat): NativeOutputFormat {
  return { type: 'json_schema', schema: (format.type === 'json_schema' ? format.schema : undefined) ?? anyObject };
}

/**
 * A reasoning effort -> the intent in native fields: adaptive thinking with output_config.effort, or no thinking for
 * `none` and `minimal`. The mode fits it to the model (models/fit-to-model.ts: the nearest level, a budget, or
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

const present = (value: unknown) => value !== undefined && value !== null;

/** The keys of a body (or of a nested object, named with `prefix`) that are present and that nothing reads, in order. */
export function unreadKeys(body: object, read: ReadonlySet<string>, prefix = ''): string[] {
  return Object.entries(body)
    .filter(([key, value]) => !read.has(key) && present(value))
    .map(([key]) => `${prefix}${key}`);
}

/** Body keys that are present and not honoured: the named ones first (in their order), then keys nothing reads. */
export function ignoredOf(
  body: Record<string, unknown>,
  honoured: ReadonlySet<string>,
  named: readonly string[],
): string[] {
  return [...named.filter((k) => present(body[k])), ...unreadKeys(body, new Set([...honoured, ...named]))];
}
