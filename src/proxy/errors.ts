// One small error hierarchy (docs/principles.md "One error hierarchy"). Code anywhere in src/proxy throws a ProxyError
// with a neutral `kind`; the outermost middleware (http/errors.ts) renders it in the wire shape of the route family
// (docs/interface.md "Compatible errors", "Native errors", "General errors"). Anything that is not a ProxyError is our
// own bug: it is logged with its stack and answered as a 500 whose body never carries the stack.

import type { BillingRefusal } from './usage/types.js';

export type ErrorKind =
  | 'invalid_request' // 400
  | 'authentication' // 401
  | 'permission' // 403
  | 'not_found' // 404
  | 'model_not_found' // 404, a model id that is not available
  | 'method_not_allowed' // 405
  | 'payload_too_large' // 413
  | 'unsupported_media_type' // 415
  | 'rate_limit' // 429
  | 'internal' // 500
  | 'upstream' // 502, the provider answered something we cannot use
  | 'unavailable' // 503
  | 'timeout'; // 504

const statusOfKind: Record<ErrorKind, number> = {
  invalid_request: 400,
  authentication: 401,
  permission: 403,
  not_found: 404,
  model_not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limit: 429,
  internal: 500,
  upstream: 502,
  unavailable: 503,
  timeout: 504,
};

interface ProxyErrorOptions {
  /** The request field the error is about (rendered as details.field / param). */
  field?: string;
  /** A short machine-friendly statement of what is wrong with the field (details.issue). */
  issue?: string;
  /** Seconds; rendered as a Retry-After header. */
  retryAfter?: number;
  /** Extra response headers (already safe to show). */
  headers?: Record<string, string>;
  /** Overrides the HTTP status derived from the kind (e.g. a faithful upstream 529 -> 503 stays 503). */
  status?: number;
  /** Whether sending the same request again could succeed; defaults from the status (retryableStatus). False for a
   * 5xx that only the user can fix (no CLI installed): the answer then tells SDKs not to retry. */
  retryable?: boolean;
  /** The provider's billing refusal this error reports (usage/billing-lane.ts), for the ledger, metrics and log. */
  refusal?: BillingRefusal;
  /** A code of the provider's own that clients act on (previous_response_not_found), instead of the kind's. */
  code?: string;
  /**
   * What only the owner may read (a path under the owner's home): written to the proxy's log with the error, never
   * in the answer, which any local caller may receive (docs/security.md).
   */
  ownerDetail?: string;
  cause?: unknown;
}

/** The statuses the official SDKs retry on their own (408, 409, 429, 5xx): every other error is final as sent. */
function retryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export class ProxyError extends Error {
  readonly kind: ErrorKind;
  readonly status: number;
  readonly field?: string;
  readonly issue?: string;
  readonly retryAfter?: number;
  readonly headers: Record<string, string>;
  readonly retryable: boolean;
  readonly refusal?: BillingRefusal;
  readonly code?: string;
  readonly ownerDetail?: string;
  /** ProxyError messages are written for clients; they are always exposed. */
  readonly expose = true;

  constructor(kind: ErrorKind, message: string, options: ProxyErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ProxyError';
    this.kind = kind;
    this.status = options.status ?? statusOfKind[kind];
    this.field = options.field;
    this.issue = options.issue;
    this.retryAfter = options.retryAfter;
    this.headers = options.headers ?? {};
    this.retryable = options.retryable ?? retryableStatus(this.status);
    this.refusal = options.refusal;
    this.code = options.code;
    this.ownerDetail = options.ownerDetail;
  }
}

export function isProxyError(err: unknown): err is ProxyError {
  return err instanceof ProxyError;
}

/** A validation failure on one request field. */
export function invalidField(field: string, issue: string, message?: string): ProxyError {
  return new ProxyError('invalid_request', message ?? `Invalid request: ${field} ${issue}`, { field, issue });
}

/** Maps a provider HTTP status (as seen by the CLI or an upstream) onto our kinds, faithfully
 * (docs/lessons.md "Limits and errors": never report a 5xx as a 429). */
export function kindOfUpstreamStatus(status: number): ErrorKind {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 404) return 'not_found';
  if (status === 413) return 'payload_too_large';
  if (status === 429) return 'rate_limit';
  if (status === 529 || status === 503) return 'unavailable';
  if (status === 504) return 'timeout';
  if (status >= 500) return 'unavailable';
  return 'upstream';
}
