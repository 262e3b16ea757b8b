// One helper for a header as node's parser hands it over: most headers are a string, a few (and any repeated one
// under some parsers) a list. The request side (client credentials), the upstream side (Retry-After) and the
// ledger's readers of the provider's headers (quota windows, billing lanes) all take its first value the same way.

/** The first value of a header node's parser may have given as a list. */
export function firstValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
