// Native usage -> compatible usage (docs/interface.md "Chat completion"). The provider counts cached prompt tokens
// apart from input_tokens; the compatible format counts them inside prompt_tokens and names the cache reads in
// prompt_tokens_details.cached_tokens. So prompt_tokens = input + cache_read + cache_creation. Numbers are
// only ever copied or added, never estimated (docs/principles.md "What we avoid": made-up token counts).

import type { CompatUsage } from './compat/schema.js';
import type { NativeUsage } from './native.js';

export function mapUsage(usage: NativeUsage): CompatUsage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const prompt = usage.input_tokens + cacheRead + (usage.cache_creation_input_tokens ?? 0);
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.output_tokens,
    total_tokens: prompt + usage.output_tokens,
    prompt_tokens_details: { cached_tokens: cacheRead },
  };
}

/**
 * A later usage report over an earlier one, in the native shape: a field the report leaves out or sets to null
 * keeps the earlier value, so a later report never erases a count (the rule reportedTokensOf applies below).
 */
export function overUsage(report: Partial<NativeUsage> | null | undefined, earlier: NativeUsage): NativeUsage {
  const out: NativeUsage = { ...earlier };
  if (!report) return out;
  if (typeof report.input_tokens === 'number') out.input_tokens = report.input_tokens;
  if (typeof report.output_tokens === 'number') out.output_tokens = report.output_tokens;
  if (report.cache_creation_input_tokens != null) out.cache_creation_input_tokens = report.cache_creation_input_tokens;
  if (report.cache_read_input_tokens != null) out.cache_read_input_tokens = report.cache_read_input_tokens;
  return out;
}

/** Two answers' usage together (several provider calls behind one client answer, docs/tool-mode.md). */
export function addUsage(a: NativeUsage | undefined, b: NativeUsage): NativeUsage {
  if (!a) return { ...b };
  const sum = (x: number | null | undefined, y: number | null | undefined) => (x ?? 0) + (y ?? 0);
  return {
    input_tokens: a.input_tokens + b.input_tokens,
    output_tokens: a.output_tokens + b.output_tokens,
    cache_creation_input_tokens: sum(a.cache_creation_input_tokens, b.cache_creation_input_tokens),
    cache_read_input_tokens: sum(a.cache_read_input_tokens, b.cache_read_input_tokens),
  };
}

/** What a total counts beyond what was already reported (never below zero); cache fields only where the total has them. */
export function subtractUsage(total: NativeUsage, base: NativeUsage): NativeUsage {
  const less = (x: number | null | undefined, y: number | null | undefined) => Math.max(0, (x ?? 0) - (y ?? 0));
  const out: NativeUsage = {
    input_tokens: less(total.input_tokens, base.input_tokens),
    output_tokens: less(total.output_tokens, base.output_tokens),
  };
  if (total.cache_creation_input_tokens != null)
    out.cache_creation_input_tokens = less(total.cache_creation_input_tokens, base.cache_creation_input_tokens);
  if (total.cache_read_input_tokens != null)
    out.cache_read_input_tokens = less(total.cache_read_input_tokens, base.cache_read_input_tokens);
  return out;
}

/** Token counts as the usage ledger keeps them (http/state.ts): copied as reported, absent when not reported. */
export interface ReportedTokens {
  inputTokens?: number;
  outputTokens?: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
}

/**
 * Native usage (whole, or the partial one of a message_delta) over what earlier events reported: a field the event
 * leaves out or sets to null keeps the earlier value, so a later event never erases a count.
 */
export function reportedTokensOf(usage: Partial<NativeUsage>, earlier: ReportedTokens = {}): ReportedTokens {
  const pick = (v: number | null | undefined, prev: number | undefined) => (typeof v === 'number' ? v : prev);
  return {
    inputTokens: pick(usage.input_tokens, earlier.inputTokens),
    outputTokens: pick(usage.output_tokens, earlier.outputTokens),
    cacheReadTokens: pick(usage.cache_read_input_tokens, earlier.cacheReadTokens),
    cacheWriteTokens: pick(usage.cache_creation_input_tokens, earlier.cacheWriteTokens),
  };
}
