// Native usage -> compatible usage (SPEC.md §2.4). The provider counts cached prompt tokens apart from
// input_tokens; the compatible format counts them inside prompt_tokens and names the cache reads in
// prompt_tokens_details.cached_tokens. So prompt_tokens = input + cache_read + cache_creation. Numbers are
// only ever copied or added, never estimated (STYLE.md: no made-up token counts).

import type { CompatUsage } from '../formats/compat.js';
import type { NativeUsage } from '../formats/native.js';

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
