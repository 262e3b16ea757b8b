// The three error wire shapes of SPEC.md §7, as pure functions of a ProxyError.

import type { ErrorKind, ProxyError } from '../errors.js';
import type { Family } from '../route-table.js';

/** SPEC.md §7.1 codes, and the type an OpenAI-style client reads. */
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

/** SPEC.md §7.2 types. */
const nativeType: Record<ErrorKind, string> = {
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

/** SPEC.md §7.3 names validation failures validation_error; other kinds keep a readable name. */
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

interface CompatErrorBody {
  error: { message: string; type: string; param: string | null; code: string };
}
export interface NativeErrorBody {
  type: 'error';
  error: { type: string; message: string; details?: { field: string; issue: string } };
  request_id?: string;
}
/** The Ollama API's error body: one string (docs/ollama.md). */
interface OllamaErrorBody {
  error: string;
}
interface GeneralErrorBody {
  error: { type: string; message: string; details?: { field: string; issue: string } };
}

/** Provider wording of a prompt over the context window (the native API and the CLI say it this way). */
const contextLength = /prompt is too long|context (?:length|window)|too many (?:input )?tokens/i;

/**
 * SPEC.md §7.1's code, or context_length_exceeded for a prompt over the context window: the code compatible and
 * Responses clients act on (Codex ends the turn instead of retrying).
 */
function compatCodeOf(err: ProxyError): string {
  if (err.code !== undefined) return err.code;
  if (err.kind === 'invalid_request' && contextLength.test(err.message)) return 'context_length_exceeded';
  return compatCode[err.kind];
}

function details(err: ProxyError): { field: string; issue: string } | undefined {
  return err.field !== undefined ? { field: err.field, issue: err.issue ?? err.message } : undefined;
}

export function renderError(
  err: ProxyError,
  family: Family,
  requestId?: string,
): CompatErrorBody | NativeErrorBody | GeneralErrorBody | OllamaErrorBody {
  switch (family) {
    case 'compat':
      return {
        error: { message: err.message, type: compatType[err.kind], param: err.field ?? null, code: compatCodeOf(err) },
      };
    case 'native':
      return {
        type: 'error',
        error: { type: nativeType[err.kind], message: err.message, details: details(err) },
        request_id: requestId,
      };
    case 'general':
      return { error: { type: generalType[err.kind], message: err.message, details: details(err) } };
    case 'ollama':
      return { error: err.message };
  }
}

/** The type string a stream error event or a metrics label uses for this error. */
export function errorTypeName(err: ProxyError, family: Family): string {
  // The Ollama shape has no type of its own; the log, metrics and ledger name its errors by the compatible codes.
  return family === 'compat' || family === 'ollama' ? compatCodeOf(err) : nativeType[err.kind];
}
