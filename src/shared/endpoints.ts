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

/** A base URL labelled with the SDK it is for: pasted into that SDK as it is, it reaches the right route. */
interface SdkBaseUrl {
  mode: 'tool' | 'direct' | 'respapi';
  label: string;
  url: string;
  note?: string;
}

/**
 * The base URLs to copy, for the modes that are on (README "Point a client at it"). The native SDKs append `/v1`
 * themselves, so their base has none: copying `…/v1` into one made it call `/v1/v1/messages`, a 404 with no hint.
 * The OpenAI SDK appends only the route's last part, so its bases keep theirs.
 */
export function sdkBaseUrls(base: string, modes: readonly string[]): SdkBaseUrl[] {
  const out: SdkBaseUrl[] = [];
  if (modes.includes('tool')) {
    out.push({ mode: 'tool', label: 'native SDK (tool mode)', url: base, note: 'the SDK adds /v1' });
    out.push({ mode: 'tool', label: 'OpenAI SDK (tool mode)', url: `${base}/compat/v1` });
  }
  if (modes.includes('direct')) {
    out.push({ mode: 'direct', label: 'native SDK, direct mode', url: `${base}/api`, note: 'the SDK adds /v1' });
    out.push({ mode: 'direct', label: 'OpenAI SDK, direct mode', url: `${base}/api/v1` });
  }
  if (modes.includes('respapi'))
    out.push({ mode: 'respapi', label: 'OpenAI SDK, response API', url: `${base}/respapi`, note: 'responses.create' });
  return out;
}
