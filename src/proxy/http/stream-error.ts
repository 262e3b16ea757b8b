// The one writer of errors after headers (docs/principles.md "Errors after headers"): once an answer's status and first
// bytes are out, a failure can no longer change the status; it becomes the events of the stream's error shape
// (http/error-shape.ts StreamErrorShape), and the stream ends. Used by every mode: the chat answer path
// (chat/answer-chat.ts, with the format's stream writer's shape), the response-API relay
// (respapi/stream-errors.ts) and the byte-level forwarder (modes/direct/forward.ts, the native shape).

import { ProxyError, isProxyError } from '../errors.js';
import { type Logger } from '../logger.js';
import { redactSecrets } from '../redact.js';
import type { ErrorShape } from './error-shape.js';
import type { SseEvent } from './sse.js';
import type { ProxyState } from './state.js';

/** An error shape whose routes stream: it also says how a failure after headers is written. */
export interface StreamErrorShape extends ErrorShape {
  /** The events that report a failure after headers (docs/principles.md "Errors after headers"); then the end. */
  streamEvents(err: ProxyError, requestId: string): SseEvent[];
}

/**
 * A failure after headers: notes it on the request (its error type goes to the log, metrics and ledger), logs it,
 * and returns the events to write. Anything that is not a ProxyError is our own bug: logged with its stack,
 * reported without details.
 */
export function failAfterHeaders(
  caught: unknown,
  state: ProxyState,
  shape: StreamErrorShape,
  logger: Logger,
): SseEvent[] {
  let err: ProxyError;
  if (isProxyError(caught)) {
    err = new ProxyError(caught.kind, redactSecrets(caught.message), { field: caught.field, issue: caught.issue });
    logger.warn({ requestId: state.requestId, kind: err.kind, reason: err.message }, 'answer failed after it started');
  } else {
    logger.error({ requestId: state.requestId, err: caught }, 'unexpected error inside a started answer');
    err = new ProxyError(
      'internal',
      'Internal server error: the proxy hit an unexpected condition; see its log for details',
    );
  }
  state.errorType = shape.typeName(err);
  return shape.streamEvents(err, state.requestId);
}
