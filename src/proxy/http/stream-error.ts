// The one writer of errors after headers (STYLE.md habit 7): once an answer's status and first bytes are out, a
// failure can no longer change the status; it becomes one error event in the stream's own format, and the stream
// ends. Used by every mode: the chat answer path (routes/answer-chat.ts), the response-API relay and the byte-level
// forwarder (modes/direct/forward.ts).
//   named-events  the native event stream: `event: error` with the SPEC.md §7.2 body
//   data-only     §6.1/§6.2 data-only streams: the family's error body, then the [DONE] sentinel, so clients that
//                 wait for it stop waiting
// A format's or a mode's own shape is its writer (FormatErrorWriter): the response-API relay's is in
// modes/respapi/stream-errors.ts.

import { ProxyError, isProxyError } from '../errors.js';
import { type Logger } from '../logger.js';
import { redactSecrets } from '../redact.js';
import type { Family } from '../route-table.js';
import { errorTypeName, renderError } from './render-error.js';
import type { SseEvent } from './sse.js';
import type { ProxyState } from './state.js';

type StreamFraming = 'named-events' | 'data-only';

/** A wire format's own error writer (formats/format.ts StreamWriter): its events and its error's type name. */
export interface FormatErrorWriter {
  fail(err: ProxyError, requestId: string): SseEvent[];
  errorType(err: ProxyError): string;
}

/** The events that report `err` inside a stream of the given framing (the message is already safe to show). */
export function streamErrorEvents(
  err: ProxyError,
  framing: StreamFraming,
  family: Family,
  requestId?: string,
): SseEvent[] {
  const body = renderError(err, family, requestId);
  return framing === 'named-events' ? [{ event: 'error', data: body }] : [{ data: body }, { data: '[DONE]' }];
}

/**
 * A failure after headers: notes it on the request (its error type goes to the log, metrics and ledger), logs it,
 * and returns the events to write. Anything that is not a ProxyError is our own bug: logged with its stack,
 * reported without details.
 */
export function failAfterHeaders(
  caught: unknown,
  state: ProxyState,
  framing: StreamFraming | FormatErrorWriter,
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
  if (typeof framing === 'object') {
    state.errorType = framing.errorType(err);
    return framing.fail(err, state.requestId);
  }
  state.errorType = errorTypeName(err, state.family);
  if (isProxyError(caught) && caught.refusal) state.billingRefusal = caught.refusal;
  return streamErrorEvents(err, framing, state.family, state.requestId);
}
