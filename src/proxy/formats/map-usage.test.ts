import { describe, expect, it } from 'vitest';
import { addUsage, mapUsage, overUsage, reportedTokensOf, subtractUsage } from './map-usage.js';

describe('usage arithmetic, one place for every answer path', () => {
  it('a later report keeps earlier counts it leaves out or sets to null, cache fields included', () => {
    const earlier = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 7, cache_creation_input_tokens: 3 };
    expect(overUsage({ output_tokens: 5, cache_read_input_tokens: null }, earlier)).toEqual({
      input_tokens: 10,
      output_tokens: 5,
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 3,
    });
    expect(overUsage(undefined, earlier)).toEqual(earlier);
    expect(reportedTokensOf({ output_tokens: 5, cache_read_input_tokens: null }, { cacheReadTokens: 7 })).toEqual({
      inputTokens: undefined,
      outputTokens: 5,
      cacheReadTokens: 7,
      cacheWriteTokens: undefined,
    });
  });

  it('adds two answers and takes what was already reported off a total, never below zero', () => {
    const a = { input_tokens: 10, output_tokens: 2, cache_read_input_tokens: 100 };
    const b = { input_tokens: 4, output_tokens: 3, cache_creation_input_tokens: 50 };
    expect(addUsage(undefined, b)).toEqual(b);
    const sum = addUsage(a, b);
    expect(sum).toEqual({
      input_tokens: 14,
      output_tokens: 5,
      cache_read_input_tokens: 100,
      cache_creation_input_tokens: 50,
    });
    expect(subtractUsage(sum, a)).toEqual({
      input_tokens: 4,
      output_tokens: 3,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 50,
    });
    expect(subtractUsage({ input_tokens: 1, output_tokens: 1 }, a)).toEqual({ input_tokens: 0, output_tokens: 0 });
  });

  it('counts cached prompt tokens inside prompt_tokens in the compatible format', () => {
    expect(
      mapUsage({ input_tokens: 4, output_tokens: 3, cache_read_input_tokens: 100, cache_creation_input_tokens: 50 }),
    ).toEqual({
      prompt_tokens: 154,
      completion_tokens: 3,
      total_tokens: 157,
      prompt_tokens_details: { cached_tokens: 100 },
    });
  });
});
