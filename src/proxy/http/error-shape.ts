// What an error shape is (docs/interface.md "Errors"), and the proxy's own one. A shape is one object per family: its
// body before headers, its events after headers when its routes stream (stream-error.ts StreamErrorShape, which adds
// them), and the type name the log, metrics and ledger record,
// so the outermost renderer (errors.ts), the one writer of errors after headers (stream-error.ts), the formats and
// the forwarders all ask the same object. Each format's shape lives in its folder under formats/ (the compatible
// one in formats/compat/, the native one at the root of formats/, Ollama's in formats/ollama/); the table of the
// four families is formats/error-shapes.ts, handed to the renderer by server.ts, since http/ sits below formats/.
// The general shape is here: it is the proxy's own, for its endpoints (health, metrics, usage, unknown roots) and
// for what http/ refuses before any route (client-error.ts, the guards).

import type { ErrorKind, ProxyError } from '../errors.js';
import type { Family } from '../route-table.js';

export interface ErrorShape {
  /** The family it is (route-table.ts): a route's family is its format's shape's. */
  readonly family: Family;
  /** The body of an answer that failed before headers (its status is the error's). */
  body(err: ProxyError, requestId?: string): unknown;
  /** The type name of the failure that the log, metrics and ledger record (errorType). */
  typeName(err: ProxyError): string;
}

/** The details object of the native and general bodies: the failing field and what is wrong with it. */
export function errorDetails(err: ProxyError): { field: string; issue: string } | undefined {
  return err.field !== undefined ? { field: err.field, issue: err.issue ?? err.message } : undefined;
}

/** docs/interface.md "General errors" names validation failures validation_error; other kinds keep a readable name. */
const generalType: Record<ErrorKind, string> = {
  invalid_request: 'validation_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found',
  model_not_found: 'not_found',
  method_not_allowed: 'method_not_allowed',
  payload_too_large: 'payload_too_large',
  unsupported_media_type: 'unsupported_media_type',
  rate_limit: 'rate_limit_error',
  internal: 'internal_error',
  upstream: 'upstream_error',
  unavailable: 'service_unavailable',
  timeout: 'timeout',
};

/** The types of docs/interface.md "Native errors": the native shape's (formats/native-error-shape.ts), here because
 * the log, metrics and ledger record them for the general family's errors too, and http/ cannot import formats/. */
export const nativeType: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'not_found_error',
  model_not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  payload_too_large: 'request_too_large',
  unsupported_media_type: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  internal: 'internal_server_error',
  upstream: 'api_error',
  unavailable: 'service_unavailable_error',
  timeout: 'timeout_error',
};

/** docs/interface.md "General errors": `{"error": {type, message, details}}`. None of its routes streams. */
export const generalErrorShape: ErrorShape = {
  family: 'general',
  body: (err) => ({ error: { type: generalType[err.kind], message: err.message, details: errorDetails(err) } }),
  // The general body's own types are for a reader; the log, metrics and ledger have always named these errors by
  // the native types, and their readers (the window's charts, a ledger query) keep doing so.
  typeName: (err) => nativeType[err.kind],
};
