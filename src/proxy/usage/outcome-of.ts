// How a request ended, from what http/ledger-row.ts sees when the response closes (docs/usage.md "What is recorded"). Pure.
// A route that knows better sets ctx.state.outcome; otherwise the status and the error type decide. Order
// matters: a client that left is `client_gone` whatever the status said; an error after a 200 went out (a stream
// that broke) is never `ok`.

import type { Outcome } from './types.js';

export interface EndFacts {
  clientGone: boolean;
  status: number;
  /** Set when an error was rendered or reported in the stream. */
  errorType?: string;
  /** The request reached a route of a mode (false: refused by the middleware before routing). */
  routed: boolean;
  /** An upstream answered (the provider, the CLI, the response API). */
  upstreamAnswered?: boolean;
  explicit?: Outcome;
}

export function outcomeOf(f: EndFacts): Outcome {
  if (f.clientGone) return 'client_gone';
  if (f.explicit) return f.explicit;
  const timeoutType = f.errorType !== undefined && /timeout/i.test(f.errorType);
  if (f.status < 400) return f.errorType === undefined ? 'ok' : timeoutType ? 'timeout' : 'upstream_error';
  if (f.status === 408 || f.status === 504 || timeoutType) return 'timeout';
  if (!f.routed) return 'rejected';
  if (f.status === 500) return f.upstreamAnswered ? 'upstream_error' : 'error';
  if (f.status >= 500) return 'upstream_error';
  // Past routing, the access key and the rate limit have already passed: 401, 403 and 429 come from upstream.
  if (f.status === 401 || f.status === 403 || f.status === 429) return 'upstream_error';
  return f.upstreamAnswered ? 'upstream_error' : 'rejected';
}
