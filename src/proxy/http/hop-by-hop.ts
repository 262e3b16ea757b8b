// The one list of hop-by-hop headers, for both directions: the client's request headers that go upstream
// (upstream/client-auth.ts) and the provider's answer headers that go back (modes/direct/forward.ts). They describe
// one connection, not the message, so a hop never passes them on; nor any header the Connection header names. Each
// direction adds its own names on top (credentials, browser context, cookies) where it builds its set.

/** Headers that describe one connection (the standard's list, and the older names still seen). */
export const hopByHopHeaders: readonly string[] = [
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
];

/**
 * Header names the Connection header lists (hop-by-hop for this message too), lower-cased, or undefined when it lists
 * only `keep-alive` or `close`, as almost every message does (the first is dropped anyway, the second names no
 * header): no Set is built on every request and answer for those.
 */
export function connectionNamed(value: string | string[] | undefined): Set<string> | undefined {
  if (value === undefined) return undefined;
  const text = (Array.isArray(value) ? value.join(',') : value).toLowerCase();
  if (text === 'keep-alive' || text === 'close') return undefined;
  return new Set(
    text
      .split(',')
      .map((t) => t.trim())
      .filter(Boolean),
  );
}
