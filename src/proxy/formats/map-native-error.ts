// A native error body ({type, message}, e.g. from an `error` stream event) -> our ProxyError, faithfully: each
// provider error type keeps its meaning (docs/lessons.md "Limits and errors": never report a 5xx as a 429).

import { ProxyError, type ErrorKind } from '../errors.js';
import type { NativeErrorBody } from './native.js';
import type { QuotaNames } from '../profile.js';
import { billingRefusalOf, explainRefusal } from '../usage/billing-lane.js';
import { explainModelRule } from './model-rule-refusal.js';

const kindOfNativeErrorType = {
  invalid_request_error: 'invalid_request',
  authentication_error: 'authentication',
  permission_error: 'permission',
  not_found_error: 'not_found',
  request_too_large: 'payload_too_large',
  rate_limit_error: 'rate_limit',
  api_error: 'unavailable',
  overloaded_error: 'unavailable',
  timeout_error: 'timeout',
} as const satisfies Record<string, ErrorKind>;

export function mapNativeError(error: NativeErrorBody): ProxyError {
  const kind: ErrorKind = Object.hasOwn(kindOfNativeErrorType, error.type)
    ? kindOfNativeErrorType[error.type as keyof typeof kindOfNativeErrorType]
    : 'upstream';
  return new ProxyError(kind, error.message || `The provider reported ${error.type}`);
}

/**
 * A provider error answer passed on as it came (direct mode's native route, modes/direct/forward.ts), when it is one of
 * the provider's billing refusals or a model rule (model-rule-refusal.ts): the same body with our explanation
 * (what happened, what to do) before the provider's words, in the same native shape and status. Anything else:
 * undefined, and the bytes go as they are.
 */
export function explainNativeRefusalBody(body: Buffer, refusals?: QuotaNames['refusals']): Buffer | undefined {
  let data: unknown;
  try {
    data = JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
  const error = (data as { type?: unknown; error?: { message?: unknown } } | null)?.error;
  if ((data as { type?: unknown }).type !== 'error' || typeof error?.message !== 'string') return undefined;
  const refusal = billingRefusalOf(error.message, refusals);
  const message = refusal ? explainRefusal(refusal, error.message) : explainModelRule(error.message);
  if (!message) return undefined;
  return Buffer.from(JSON.stringify({ ...(data as object), error: { ...error, message } }), 'utf8');
}
