// DNS-rebinding guard (docs/lessons.md "Local-server safety"; docs/security.md). While the proxy listens on loopback, a
// request whose Host header is not a loopback name or a configured name is refused with 403: a web page that
// rebinds its own domain to 127.0.0.1 still sends its own domain as Host. Beyond loopback the access key protects
// instead: `checkNames: false` then, and only a request with two Host headers is refused (on every interface).
//
// The Host value is parsed exactly (RFC 9110 §7.2 / RFC 3986 §3.2.2): `host [":" port]`, where host is a bracketed
// IPv6 literal, a dotted IPv4 address or a DNS name, and port is 1 to 5 digits in 1..65535. Anything else is
// refused as a whole rather than "repaired": `[::1].attacker.com`, `127.0.0.1:80.attacker.com` and `localhost:evil`
// are not loopback, they are malformed.
//
// A rebinding page can send thousands of requests: per Host name, one refusal a minute is logged at warn, the rest
// at debug (refusal-log.ts); the metric counts them all.

import { isIPv4, isIPv6 } from 'node:net';
import { ProxyError } from '../errors.js';
import { RefusalLog } from './refusal-log.js';
import type { ProxyMiddleware } from './types.js';

interface ParsedHost {
  /** Lower-case; IPv6 without brackets and in its canonical short form (`::1`); a DNS name without a final dot. */
  hostname: string;
  kind: 'ipv4' | 'ipv6' | 'name';
  port?: number;
}

// A DNS label: letters, digits, hyphen (not at an end), underscore (seen in real local names); 1..63 characters.
const label = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;
const digits = /^[0-9]{1,5}$/;

function parsePort(text: string): number | undefined | null {
  if (!digits.test(text)) return null;
  const port = Number(text);
  return port >= 1 && port <= 65535 ? port : null;
}

function canonicalIpv6(text: string): string | undefined {
  if (!isIPv6(text) || text.includes('%')) return undefined;
  try {
    return new URL(`http://[${text}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
}

/** The Host header value parsed exactly, or undefined when it is not a well-formed `host[:port]`. */
export function parseHost(hostHeader: string): ParsedHost | undefined {
  const h = hostHeader.trim().toLowerCase();
  if (h.length === 0 || h.length > 260) return undefined;
  let hostPart: string;
  let portPart: string | undefined;
  if (h.startsWith('[')) {
    const close = h.indexOf(']');
    if (close < 0) return undefined;
    const rest = h.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) return undefined;
    const ip = canonicalIpv6(h.slice(1, close));
    if (ip === undefined) return undefined;
    hostPart = ip;
    portPart = rest === '' ? undefined : rest.slice(1);
    const port = portPart === undefined ? undefined : parsePort(portPart);
    if (port === null) return undefined;
    return { hostname: hostPart, kind: 'ipv6', port };
  }
  const colon = h.indexOf(':');
  if (colon >= 0) {
    hostPart = h.slice(0, colon);
    portPart = h.slice(colon + 1);
  } else {
    hostPart = h;
  }
  const port = portPart === undefined ? undefined : parsePort(portPart);
  if (port === null) return undefined;
  // One final dot is the absolute form of the same name (`localhost.`).
  const name = hostPart.endsWith('.') ? hostPart.slice(0, -1) : hostPart;
  if (name.length === 0 || name.length > 253) return undefined;
  if (isIPv4(name)) return { hostname: name, kind: 'ipv4', port };
  const labels = name.split('.');
  if (!labels.every((l) => label.test(l))) return undefined;
  // All-numeric dotted names that are not a valid IPv4 address (`127.1`, `127.0.0.256`) are refused: resolvers
  // read some of them as addresses, so they are neither a clear name nor a clear address.
  if (labels.every((l) => /^[0-9]+$/.test(l)) || /^(0x[0-9a-f]*|[0-9]+)$/.test(labels[labels.length - 1]))
    return undefined;
  return { hostname: name, kind: 'name', port };
}

/** True for names and addresses that always mean this machine. */
export function isLoopbackHostname(host: ParsedHost): boolean {
  switch (host.kind) {
    case 'ipv4':
      return host.hostname.startsWith('127.');
    case 'ipv6':
      return host.hostname === '::1' || host.hostname === '::ffff:7f00:1' || /^::ffff:127\./.test(host.hostname);
    case 'name':
      // RFC 6761 §6.3: `localhost` and every name under it are loopback, and browsers resolve them so themselves.
      return host.hostname === 'localhost' || host.hostname.endsWith('.localhost');
  }
}

function normaliseAllowed(name: string): string {
  const parsed = parseHost(name);
  return parsed ? parsed.hostname : name.trim().toLowerCase();
}

/**
 * A refused request is counted (`metrics.refused('host')`) and kept out of the usage ledger: a rebinding page could
 * otherwise fill it with error rows. Two Host headers are refused as malformed: node keeps the first, and
 * `127.0.0.1` then `evil.test` must not pass as loopback when another hop might read the second.
 */
export function hostGuard(
  allowedHosts: string[],
  metrics?: { refused(reason: string): void },
  opts: { checkNames?: boolean; refusals?: RefusalLog } = {},
): ProxyMiddleware {
  const allowed = new Set(allowedHosts.map(normaliseAllowed));
  const checkNames = opts.checkNames ?? true;
  const refusals = opts.refusals ?? new RefusalLog();
  return (ctx, next) => {
    const refused = check(ctx);
    if (refused !== undefined) {
      ctx.state.offLedger = true;
      metrics?.refused('host');
      ctx.state.refusal = refusals.note(refused.source);
      throw refused.error;
    }
    return next();
  };

  /** Why the request is refused, and its source for the log (the refused name; malformed values share one). */
  function check(ctx: Parameters<ProxyMiddleware>[0]): { error: ProxyError; source: string } | undefined {
    const header = hostHeaderOf(ctx.req.rawHeaders);
    // RFC 9110 §7.2: an HTTP/1.1 request names its host. node would answer this itself, bare (listen/listeners.ts
    // turns that off so the answer has our headers and body); on every interface, like duplicates.
    if (header === '' && ctx.req.httpVersionMajor === 1 && ctx.req.httpVersionMinor === 1) {
      return {
        source: 'missing Host header',
        error: new ProxyError('invalid_request', 'No Host header: an HTTP/1.1 request names its host (RFC 9110 §7.2)', {
          field: 'host',
          issue: 'missing Host header',
        }),
      };
    }
    if (!checkNames && header !== null) return undefined;
    const parsed = header === null ? undefined : parseHost(header);
    if (!parsed) {
      if (header === null) {
        return {
          source: 'duplicate Host header',
          error: new ProxyError(
            'invalid_request',
            'More than one Host header: a request names one host (RFC 9110 §7.2)',
            { field: 'host', issue: 'duplicate Host header' },
          ),
        };
      }
      const shown = header.length > 80 ? `${header.slice(0, 80)}...` : header;
      return {
        source: 'malformed Host header',
        error: new ProxyError(
          'permission',
          `Host header "${shown || '(none)'}" is not a valid host[:port]. The proxy answers only localhost, 127.0.0.1 and [::1] (add names with ALLOWED_HOSTS).`,
          {
            field: 'host',
            issue: 'malformed Host header',
          },
        ),
      };
    }
    if (!isLoopbackHostname(parsed) && !allowed.has(parsed.hostname)) {
      return {
        source: `Host ${parsed.hostname}`,
        error: new ProxyError(
          'permission',
          `Host "${parsed.hostname}" is not allowed. The proxy answers only localhost, 127.0.0.1 and [::1] (add names with ALLOWED_HOSTS).`,
          {
            field: 'host',
            issue: 'not a loopback or allowed name',
          },
        ),
      };
    }
    return undefined;
  }
}

/** The one Host header of a request; null when there are several (ambiguous), '' when there is none. */
function hostHeaderOf(rawHeaders: readonly string[]): string | null {
  let found: string | undefined;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === 4 && rawHeaders[i].toLowerCase() === 'host') {
      if (found !== undefined) return null;
      found = rawHeaders[i + 1];
    }
  }
  return found ?? '';
}
