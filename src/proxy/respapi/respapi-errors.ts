// Upstream response-API failures -> ProxyErrors (rendered as docs/interface.md "Compatible errors" for the /respapi
// family). Faithful mapping (docs/lessons.md "Limits and errors"): a 5xx is never reported as a 429, Retry-After is
// passed through, and a refused subscription (403) says what to do about it.

import { ProxyError, kindOfUpstreamStatus } from '../errors.js';
import type { Profile } from '../profile.js';
import { parseRetryAfter } from '../upstream/upstream-error.js';

/** The human message of an upstream error body ({error:{message}}, {detail}, {message}, or the text itself). */
export function upstreamMessage(text: string): string {
  let msg: unknown;
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; detail?: unknown; message?: unknown };
    msg = (typeof json.error === 'object' ? json.error?.message : json.error) ?? json.detail ?? json.message;
  } catch {
    msg = text;
  }
  const s = typeof msg === 'string' ? msg : JSON.stringify(msg ?? '');
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 300)}…` : flat || 'no details';
}

export function respapiUpstreamError(
  status: number,
  text: string,
  retryAfterHeader: string | undefined,
  profile: Profile,
): ProxyError {
  const msg = upstreamMessage(text);
  const retryAfter = parseRetryAfter(retryAfterHeader);
  if (status === 401) {
    return new ProxyError(
      'authentication',
      `The response API refused the login (${msg}). ${profile.respapi.loginHint}`,
    );
  }
  if (status === 403) {
    return new ProxyError(
      'permission',
      `${profile.respapi.subscriptionHint}; the response API refused access (${msg})`,
    );
  }
  if (status === 429) {
    return new ProxyError('rate_limit', `The response API's rate or usage limit was reached (${msg})`, {
      retryAfter: retryAfter ?? 1,
    });
  }
  if (status >= 500) {
    return new ProxyError('unavailable', `The response API is unavailable (HTTP ${status}: ${msg}); try again later`, {
      status: 503,
      retryAfter,
    });
  }
  if (status === 400 || status === 422) {
    return new ProxyError('invalid_request', `The response API rejected the request: ${msg}`);
  }
  const kind = kindOfUpstreamStatus(status);
  return new ProxyError(kind, `The response API answered HTTP ${status} (${msg})`, { retryAfter });
}
