// The compatible family's error shape (docs/interface.md "Compatible errors"), the one OpenAI-style clients parse: the
// body before headers on every compatible route (/compat, the chat completions of /cc, /sdk and /api, the Responses
// routes, the response-API relay, the Ollama listener's /v1), and after headers in a data-only stream (its
// "Compatible stream") the same body, then [DONE]. Its code is also the type name the log, metrics and ledger record for the
// formats that speak its codes (Responses, Ollama, the response-API relay).

import type { ErrorKind, ProxyError } from '../../errors.js';
import type { StreamErrorShape } from '../../http/stream-error.js';
import { dataOnlyErrorEvents } from '../data-only-writer.js';

/** The "Compatible errors" codes, and the type an OpenAI-style client reads. */
const compatCode: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'invalid_api_key',
  permission: 'insufficient_quota',
  not_found: 'not_found',
  model_not_found: 'model_not_found',
  method_not_allowed: 'method_not_allowed',
  payload_too_large: 'request_too_large',
  unsupported_media_type: 'unsupported_media_type',
  rate_limit: 'rate_limit_exceeded',
  internal: 'internal_server_error',
  upstream: 'bad_gateway',
  unavailable: 'service_unavailable',
  timeout: 'timeout',
};

const compatType: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  authentication: 'authentication_error',
  permission: 'permission_error',
  not_found: 'invalid_request_error',
  model_not_found: 'invalid_request_error',
  method_not_allowed: 'invalid_request_error',
  payload_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  rate_limit: 'rate_limit_error',
  internal: 'server_error',
  upstream: 'server_error',
  unavailable: 'server_error',
  timeout: 'server_error',
};

interface CompatErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}

/** Provider wording of a prompt over the context window (the native API and the CLI say it this way). */
const contextLength = /prompt is too long|context (?:length|window)|too many (?:input )?tokens/i;

/**
 * The "Compatible errors" code, or context_length_exceeded for a prompt over the context window: the code compatible
 * and Responses clients act on (Codex ends the turn instead of retrying).
 */
function codeOf(err: ProxyError): string {
  if (err.code !== undefined) return err.code;
  if (err.kind === 'invalid_request' && contextLength.test(err.message)) return 'context_length_exceeded';
  return compatCode[err.kind];
}

function body(err: ProxyError): CompatErrorBody {
  return { error: { message: err.message, type: compatType[err.kind], param: err.field ?? null, code: codeOf(err) } };
}

export const compatErrorShape: StreamErrorShape = {
  family: 'compat',
  body,
  streamEvents: (err) => dataOnlyErrorEvents(body(err)),
  typeName: codeOf,
};
