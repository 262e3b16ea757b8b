// The CLI's failure report (the `<synthetic>` assistant line and the `result` line with is_error, see
// fixtures/cli-recordings/README.md) -> a ProxyError, mapped faithfully from the provider status the CLI saw
// (docs/lessons.md "Limits and errors": never a 5xx reported as a 429):
// - 401, or the CLI's "not logged in" text (it has no status then): authentication, telling how to log in again
//   (docs/interface.md "Health errors" remedy);
// - 429: rate_limit, with retryAfter from the CLI's own last retry delay when it retried a 429 (that delay already
//   honours the provider's retry-after);
// - 5xx and 529 (overloaded): unavailable, 503;
// - the provider's two billing refusals (usage/billing-lane.ts), known by their words: what happened and what to
//   do, with the provider's status (400);
// - other statuses by errors.ts kindOfUpstreamStatus; no status at all: upstream (502).

import { kindOfUpstreamStatus, ProxyError } from '../../../errors.js';
import type { QuotaNames } from '../../../profile.js';
import { billingRefusalOf, explainRefusal } from '../../../usage/billing-lane.js';

export interface CliFailure {
  /** The provider's HTTP status as the CLI reported it, or null when there was no provider answer. */
  status: number | null;
  /** The provider's error type, e.g. rate_limit_error. */
  type?: string | null;
  /** The CLI's text for the failure, e.g. "Not logged in · Please run /login". */
  text: string;
}

export interface CliErrorOptions {
  /** profile.cli.notLoggedInPattern */
  notLoggedInPattern: string;
  /** profile.cli.loginHint */
  loginHint: string;
  /** profile.quota.refusals: the provider's billing refusals, recognised by its words (default: the profile's). */
  refusals?: QuotaNames['refusals'];
}

export function mapCliError(failure: CliFailure, options: CliErrorOptions, retryDelayMs?: number): ProxyError {
  const text = failure.text.trim() || 'the assistant CLI reported an error';
  const notLoggedIn = options.notLoggedInPattern !== '' && text.includes(options.notLoggedInPattern);
  if (failure.status === 401 || notLoggedIn) {
    return new ProxyError('authentication', `The assistant CLI is not authenticated (${text}). ${options.loginHint}`);
  }
  if (failure.status === null) return new ProxyError('upstream', `The assistant CLI failed: ${text}`);
  const kind = kindOfUpstreamStatus(failure.status);
  // A billing refusal reaches tool mode as the CLI's `API Error: 400 <the provider's words>` (the real CLI, recorded
  // in __fixtures__/cli-refusal-extra-usage-off.jsonl): the provider's status kept, our explanation first.
  const refusal = billingRefusalOf(text, options.refusals);
  if (refusal) return new ProxyError(kind, explainRefusal(refusal, text), { refusal });
  if (kind === 'rate_limit') {
    const retryAfter = retryDelayMs !== undefined ? Math.max(1, Math.ceil(retryDelayMs / 1000)) : undefined;
    return new ProxyError('rate_limit', `The provider is rate limiting requests: ${text}`, { retryAfter });
  }
  return new ProxyError(kind, `The provider answered ${failure.status}: ${text}`);
}
