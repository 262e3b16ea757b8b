// Which lane paid for a request, and the provider's two billing refusals (docs/usage.md "Lanes"). Pure functions of
// what an upstream reported: the provider's unified-limit headers in direct mode, the CLI's rate_limit_event in
// tool mode. Nothing is guessed: a request whose answer carried no such signal has no lane (null), and a refusal is
// recognised only by the provider's own words (profile.ts `quota.refusals`), never by what the request contained.

import { firstValue } from '../header-value.js';
import { defaultProfile, type QuotaNames } from '../profile.js';
import type { BillingLane, BillingRefusal } from './types.js';

type Headers = Record<string, string | string[] | undefined>;

/** Which credential carried a direct-mode request: the client's own provider key, or a subscription login. */
export type CredentialKind = 'api-key' | 'oauth';

function get(headers: Headers, name: string): string | undefined {
  // Node and undici give header names lower-cased, as the profile's prefix is compared here.
  const v = firstValue(headers[name]);
  return typeof v === 'string' && v.trim() !== '' ? v.trim().toLowerCase() : undefined;
}

/**
 * Direct mode. The client's own key is billed to that key (`api_key`): the answer says so by having been served
 * at all. A subscription login is `extra_usage` when the provider says overage is in use
 * (`<prefix>-overage-in-use: true`) or that overage is the binding claim (`<prefix>-representative-claim:
 * overage`), `plan` when the answer carries the unified headers without either, and unknown without them.
 */
export function laneOfProviderAnswer(
  headers: Headers,
  credential: CredentialKind,
  names: QuotaNames = defaultProfile.quota,
): BillingLane | null {
  if (credential === 'api-key') return 'api_key';
  const p = names.providerPrefix.toLowerCase();
  const inUse = get(headers, `${p}-overage-in-use`);
  const claim = get(headers, `${p}-representative-claim`);
  if (inUse === 'true' || claim === 'overage') return 'extra_usage';
  if (inUse === 'false' || get(headers, `${p}-status`) !== undefined || claim !== undefined) return 'plan';
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Tool mode: the CLI's `rate_limit_info`. Extra usage when the CLI says overage is in use: `isUsingOverage: true`,
 * or, as the real CLI 2.1.330 prints the provider's `overage-in-use: true` header (recorded in
 * __fixtures__/cli-rate-limit-overage.jsonl), `overageInUse: true` with `rateLimitType: overage` while
 * `isUsingOverage` stays false. An event with a status and no overage in use is the plan; anything else says nothing.
 */
export function laneOfCliRateLimit(info: unknown): BillingLane | null {
  if (!isObject(info)) return null;
  if (info.isUsingOverage === true || info.overageInUse === true || info.rateLimitType === 'overage')
    return 'extra_usage';
  if (info.isUsingOverage === false || typeof info.status === 'string') return 'plan';
  return null;
}

/** The provider's refusal named by its own message, or null (every other error). */
export function billingRefusalOf(
  message: string,
  refusals: QuotaNames['refusals'] = defaultProfile.quota.refusals,
): BillingRefusal | null {
  const text = message.toLowerCase();
  if (refusals.thirdParty.some((w) => w !== '' && text.includes(w.toLowerCase()))) return 'extra_usage_off';
  if (refusals.cliOnly.some((w) => w !== '' && text.includes(w.toLowerCase()))) return 'cli_only_credential';
  return null;
}

/**
 * What happened and what the user can do, for each refusal: the text a client reads in its route's error shape
 * (the provider's own words follow it). Cites the project's docs, never a tracker.
 */
export const refusalExplanation: Record<BillingRefusal, string> = {
  extra_usage_off:
    'The provider billed or refused this as third-party use of a subscription: it draws such requests from extra usage, and extra usage is off for this account. ' +
    'Turn extra usage on in the provider\'s account settings, use tool mode (/v1, /compat/v1) where the CLI sends its own prompt, or send your own API key in direct mode (docs/usage.md "Lanes").',
  cli_only_credential:
    'This login only works through the CLI: the provider refused the subscription credential for a request that did not come from its CLI. ' +
    'Use tool mode (/v1, /compat/v1), or your own API key in direct mode (docs/usage.md "Lanes").',
};

/** The message a client reads: our explanation, then the provider's words. */
export function explainRefusal(reason: BillingRefusal, providerText: string): string {
  return `${refusalExplanation[reason]} The provider said: ${providerText}`;
}
