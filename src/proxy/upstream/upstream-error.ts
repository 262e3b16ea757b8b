// Failures on the way to the provider, as ProxyErrors the error renderer (or an in-stream error event) can show:
// network errors and the three deadlines (connect, first byte, idle; config.upstream*TimeoutMs), and the
// provider's own error answers, mapped faithfully (docs/lessons.md "Limits and errors": a 5xx is never a 429;
// Retry-After passes through).

import { ProxyError, kindOfUpstreamStatus } from '../errors.js';
import { redactSecrets } from '../redact.js';
import type { Config } from '../config.js';
import { firstValue } from '../header-value.js';
import { billingRefusalOf, explainRefusal } from '../usage/billing-lane.js';
import { explainModelRule } from '../formats/model-rule-refusal.js';

export type UpstreamTimeouts = Pick<
  Config,
  'upstreamConnectTimeoutMs' | 'upstreamFirstByteTimeoutMs' | 'upstreamIdleTimeoutMs'
>;

/** Which upstream failed, in the words and the setting a user would check. */
interface UpstreamTarget {
  name: string;
  baseUrlSetting: string;
}

const providerApi: UpstreamTarget = { name: 'the provider API', baseUrlSetting: 'ASSISTANT_API_BASE_URL' };
export const responseApi: UpstreamTarget = { name: 'the response API', baseUrlSetting: 'RESPAPI_BASE_URL' };

/** A thrown undici error (or an abort) -> ProxyError; used for every upstream of every mode. */
export function fromTransportError(
  err: unknown,
  timeouts: UpstreamTimeouts,
  target: UpstreamTarget = providerApi,
): ProxyError {
  if (err instanceof ProxyError) return err;
  const what = target.name;
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new ProxyError(
        'timeout',
        `Could not connect to ${what} within ${timeouts.upstreamConnectTimeoutMs} ms (UPSTREAM_CONNECT_TIMEOUT_MS)`,
        { cause: err },
      );
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new ProxyError(
        'timeout',
        `${capital(what)} did not start answering within ${timeouts.upstreamFirstByteTimeoutMs} ms (UPSTREAM_FIRST_BYTE_TIMEOUT_MS)`,
        { cause: err },
      );
    case 'UND_ERR_BODY_TIMEOUT':
      return new ProxyError(
        'timeout',
        `${capital(what)} stalled: no data for ${timeouts.upstreamIdleTimeoutMs} ms (UPSTREAM_IDLE_TIMEOUT_MS)`,
        { cause: err },
      );
    case 'ECONNREFUSED':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new ProxyError(
        'unavailable',
        `Cannot reach ${what} (${code}); check the network and ${target.baseUrlSetting}`,
        { cause: err },
      );
    case 'UND_ERR_ABORTED':
    case 'ABORT_ERR':
      return new ProxyError('unavailable', 'The request was cancelled', { cause: err });
    default: {
      if ((err as Error)?.name === 'AbortError')
        return new ProxyError('unavailable', 'The request was cancelled', { cause: err });
      const detail = code ?? ((err as Error)?.message ? redactSecrets((err as Error).message) : 'unknown error');
      return new ProxyError('upstream', `The connection to ${what} failed (${detail})`, { cause: err });
    }
  }
}

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Retry-After as seconds: a number of seconds or an HTTP date (RFC 9110 §10.2.3); undefined when unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** Headers of a provider error answer that a client may act on (rate-limit state, retry hints). */
function passedErrorHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers)) {
    const key = k.toLowerCase();
    const value = firstValue(v);
    if (value === undefined) continue;
    if (key.includes('ratelimit') || key === 'x-should-retry' || key === 'request-id') out[key] = value;
  }
  return out;
}

/**
 * A provider answer with a non-2xx status -> ProxyError of the faithful kind, with the provider's message (which
 * names the problem: an unknown model, a bad parameter). 529 (overloaded) and other 5xx become 503; 429 keeps
 * Retry-After.
 */
export function fromErrorAnswer(
  status: number,
  headers: Record<string, string | string[] | undefined>,
  bodyText: string,
): ProxyError {
  let message = '';
  let type = '';
  try {
    const body = JSON.parse(bodyText) as { error?: { message?: unknown; type?: unknown } };
    if (typeof body.error?.message === 'string') message = body.error.message;
    if (typeof body.error?.type === 'string') type = body.error.type;
  } catch {
    /* not JSON: the status alone */
  }
  const kind = kindOfUpstreamStatus(status);
  const text = redactSecrets(message || `HTTP ${status}`).slice(0, 500);
  const retryAfter = parseRetryAfter(firstValue(headers['retry-after']));
  const said = `The provider answered ${status}${type ? ` ${type}` : ''}: ${text}`;
  // The provider's billing refusals (usage/billing-lane.ts) say what happened and what to do before its own words.
  const refusal = status >= 400 && status < 500 ? (billingRefusalOf(message) ?? undefined) : undefined;
  // A model rule (docs/models.md) is explained the same way: what the model refused and what to do.
  const explained = refusal
    ? explainRefusal(refusal, said)
    : ((status === 400 ? explainModelRule(said) : undefined) ?? said);
  return new ProxyError(kind, explained, {
    retryAfter,
    headers: passedErrorHeaders(headers),
    refusal,
  });
}
