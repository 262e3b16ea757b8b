// Facts about the proxy's address that the proxy, the tray and the window all need, in one pure module with no
// imports (it runs in Node and in the window's page alike; eslint.config.js keeps it so), so the three cannot
// drift: which hosts are loopback, which binds are wildcards, the base URL a client on this machine uses. The list
// of modes is modes.ts's, beside it.

const bare = (host: string): string => host.replace(/^\[|\]$/g, '').toLowerCase();

/** localhost, 127.0.0.0/8 and ::1, with or without IPv6 brackets. */
export function isLoopbackHost(host: string): boolean {
  const h = bare(host);
  return h === 'localhost' || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h);
}

/** A bind on every interface: 0.0.0.0 or :: (written [::] too). */
export function isWildcardHost(host: string): boolean {
  const h = bare(host);
  return h === '0.0.0.0' || h === '::';
}

/** The base URL a client on this machine uses: a wildcard bind is reached through 127.0.0.1, and an IPv6 address
 * gets its brackets (once). */
export function clientBaseUrl(at: { host: string; port: number }): string {
  if (isWildcardHost(at.host)) return `http://127.0.0.1:${at.port}`;
  const h = at.host.replace(/^\[|\]$/g, '');
  return `http://${h.includes(':') ? `[${h}]` : h}:${at.port}`;
}
