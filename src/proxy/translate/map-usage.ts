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
