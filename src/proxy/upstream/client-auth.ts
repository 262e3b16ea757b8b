// Who pays for a direct-mode request (docs/interface.md "Authentication"), decided from the client's headers, and the
// headers that go upstream. Pure functions: the route hands in the request headers, the profile and the proxy's access
// key.
// - a real provider key (profile.api.realKeyPrefixes) in x-api-key or Authorization: Bearer is forwarded as sent;
// - the client's own OAuth access token (profile.api.oauthTokenPrefix) is forwarded as a bearer token, with the
//   OAuth headers and feature flags the provider requires;
// - anything else (a dummy key client libraries demand, no key, the proxy's own access key) is replaced by the
//   OAuth token from the CLI's credential file, with the same headers.

import { firstValue } from '../header-value.js';
import { connectionNamed, hopByHopHeaders } from '../http/hop-by-hop.js';
import type { Profile } from '../profile.js';

export type ClientAuth =
  | { kind: 'api-key'; header: 'x-api-key' | 'authorization'; value: string }
  | { kind: 'client-oauth'; token: string }
  | { kind: 'cli-oauth' };

type IncomingHeaders = Record<string, string | string[] | undefined>;

function bearerOf(headers: IncomingHeaders): string | undefined {
  const auth = firstValue(headers.authorization);
  const m = auth ? /^bearer\s+(.+)$/i.exec(auth.trim()) : null;
  return m ? m[1].trim() : undefined;
}

export function clientAuthOf(headers: IncomingHeaders, profile: Profile, accessKey?: string): ClientAuth {
  const isProxyKey = (v: string) => accessKey !== undefined && v === accessKey;
  const isRealKey = (v: string) => profile.api.realKeyPrefixes.some((p) => v.startsWith(p));
  const isOauthToken = (v: string) => v.startsWith(profile.api.oauthTokenPrefix);
  const apiKey = firstValue(headers['x-api-key'])?.trim();
  const bearer = bearerOf(headers);
  if (apiKey && !isProxyKey(apiKey) && isRealKey(apiKey))
    return { kind: 'api-key', header: 'x-api-key', value: apiKey };
  if (bearer && !isProxyKey(bearer) && isRealKey(bearer))
    return { kind: 'api-key', header: 'authorization', value: `Bearer ${bearer}` };
  for (const v of [bearer, apiKey])
    if (v && !isProxyKey(v) && isOauthToken(v)) return { kind: 'client-oauth', token: v };
  return { kind: 'cli-oauth' };
}

/** Hop-by-hop headers (http/hop-by-hop.ts) and what must not leave this machine; the rest is forwarded. */
const dropped = new Set([
  ...hopByHopHeaders,
  'host',
  'content-length',
  'expect',
  // Credentials are set below from the ClientAuth, never copied.
  'authorization',
  'x-api-key',
  'x-proxy-access-key',
  // Browser context of a local client: about this proxy, not the provider (an Origin makes the provider treat the
  // call as a browser request); cookies for localhost must not reach the provider.
  'cookie',
  'origin',
  'referer',
  // The proxy needs identity encoding to stream chunk by chunk and read usage for its metrics.
  'accept-encoding',
]);

/** Client headers without hop-by-hop ones, credentials and browser context; names lower-cased. */
export function forwardableHeaders(headers: IncomingHeaders): Record<string, string> {
  // Most clients send `Connection: keep-alive` (or nothing): no extra hop-by-hop names to drop.
  const connectionTokens = connectionNamed(headers.connection);
  const out: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    const key = name.toLowerCase();
    if (value === undefined || dropped.has(key) || connectionTokens?.has(key) || key.startsWith('sec-')) continue;
    out[key] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

/** The client's comma-separated feature flags plus the required ones, each once, the client's first. */
export function mergeFlags(client: string | undefined, required: string[]): string {
  const flags = (client ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  for (const f of required) if (!flags.includes(f)) flags.push(f);
  return flags.join(',');
}

/** The profile's upstream header rules in the form every request uses: names lower-cased, flags joined. */
interface HeaderRules {
  versionHeader: string;
  defaultVersion: string;
  oauthHeaders: Array<[string, string]>;
  betaHeader: string;
  betaFlags: string[];
  betaFlagsJoined: string;
}

// Worked out once per profile, not lower-cased, listed and joined again on every request.
const rulesByApi = new WeakMap<Profile['api'], HeaderRules>();

function rulesOf(api: Profile['api']): HeaderRules {
  let rules = rulesByApi.get(api);
  if (!rules) {
    rules = {
      versionHeader: api.versionHeader.toLowerCase(),
      defaultVersion: api.defaultVersion,
      oauthHeaders: Object.entries(api.oauthHeaders).map(([k, v]) => [k.toLowerCase(), v]),
      betaHeader: api.oauthBetaHeader.toLowerCase(),
      betaFlags: api.oauthBetaFlags,
      betaFlagsJoined: mergeFlags(undefined, api.oauthBetaFlags),
    };
    rulesByApi.set(api, rules);
  }
  return rules;
}

/**
 * The headers sent upstream: the forwardable client headers, the credential, and for OAuth the provider's
 * required headers and feature flags merged into the client's own (docs/lessons.md "Tokens and auth": overwriting them
 * broke features). The version header is defaulted when the client sent none; a client's own version is kept.
 */
export function upstreamHeaders(
  base: Record<string, string>,
  auth: ClientAuth,
  profile: Profile,
  oauthToken?: string,
): Record<string, string> {
  const rules = rulesOf(profile.api);
  // Copied key by key: a spread copy that then gains the credential's keys cost twenty times more in V8 (each new
  // key made a new hidden class for a map that was never reused).
  const out: Record<string, string> = {};
  for (const name in base) out[name] = base[name];
  if (!out[rules.versionHeader]) out[rules.versionHeader] = rules.defaultVersion;
  if (auth.kind === 'api-key') {
    out[auth.header] = auth.value;
    return out;
  }
  const token = auth.kind === 'client-oauth' ? auth.token : oauthToken;
  if (token === undefined) throw new Error('upstreamHeaders: an OAuth request needs a token');
  out.authorization = `Bearer ${token}`;
  for (const [k, v] of rules.oauthHeaders) out[k] = v;
  const clientFlags = out[rules.betaHeader];
  out[rules.betaHeader] = clientFlags ? mergeFlags(clientFlags, rules.betaFlags) : rules.betaFlagsJoined;
  return out;
}
