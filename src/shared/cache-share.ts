// The share of a prompt read from the provider's cache, for the usage API and the window alike (docs/usage.md
// "Reads from the cache"): cache reads over the whole prompt (plain input, cache writes and cache reads), as the
// provider reported them. Pure and import-free, so Node and the page both load it.

/** Token counts of a group of requests, as the ledger sums them. */
interface PromptTokens {
  input: number;
  cacheRead: number;
  cacheWrite: number;
}

/** Reads over the whole prompt (0-1, four decimals); null when no prompt tokens were reported. */
export function cacheReadShare(t: PromptTokens): number | null {
  const prompt = t.input + t.cacheRead + t.cacheWrite;
  return prompt > 0 ? Math.round((t.cacheRead / prompt) * 10_000) / 10_000 : null;
}
