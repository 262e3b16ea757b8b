// A native error body ({type, message}, e.g. from an `error` stream event) -> our ProxyError, faithfully: each
// provider error type keeps its meaning (PEERS.md: never report a 5xx as a 429).

import { ProxyError, type ErrorKind } from '../errors.js';
import type { NativeErrorBody } from '../formats/native.js';

export const kindOfNativeErrorType = {
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
