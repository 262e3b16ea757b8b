// What the proxy reads from the response API's events while passing them through (docs/respapi-mode.md): the final response
// (its usage is the chat observer's, chat/chat-observer.ts), failures reported inside the stream, and the model name, which is shown to the client as the
// neutral rm- id it asked for (docs/interface.md "Names": neutral ids everywhere). Pure functions.

import { ProxyError } from '../errors.js';
import type { RespapiResponse } from './schema.js';

interface ParsedEvent {
  /** The event's `type` (from the JSON, else the SSE event name). */
  type: string;
  json: Record<string, unknown> | undefined;
}

export function parseEvent(event: string | undefined, data: string): ParsedEvent {
  let json: Record<string, unknown> | undefined;
  try {
    const v: unknown = JSON.parse(data);
    if (v && typeof v === 'object' && !Array.isArray(v)) json = v as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  const type = typeof json?.type === 'string' ? json.type : (event ?? 'message');
  return { type, json };
}

/** Events whose `response` is the final answer. */
function isFinalEvent(type: string): boolean {
  return type === 'response.completed' || type === 'response.incomplete';
}

export function isFailureEvent(type: string): boolean {
  return type === 'response.failed' || type === 'error';
}

function responseOf(json: Record<string, unknown> | undefined): RespapiResponse | undefined {
  const r = json?.response;
  return r && typeof r === 'object' && !Array.isArray(r) ? (r as RespapiResponse) : undefined;
}

export function finalResponse(ev: ParsedEvent): RespapiResponse | undefined {
  return isFinalEvent(ev.type) ? responseOf(ev.json) : undefined;
}

/**
 * The event's data with `response.model` shown as the neutral id. Data that needs no change is returned as the
 * exact upstream text.
 */
export function rewriteModel(data: string, ev: ParsedEvent, upstreamModel: string, neutralModel: string): string {
  const response = responseOf(ev.json);
  if (!response || response.model !== upstreamModel || upstreamModel === neutralModel) return data;
  return JSON.stringify({ ...ev.json, response: { ...response, model: neutralModel } });
}

/** A failure the upstream reported inside its stream, as the error a non-streaming client gets. */
export function failureError(ev: ParsedEvent): ProxyError {
  const json = ev.json ?? {};
  // An `error` event carries code/message at the top level; some backends nest them under `error` as the
  // provider's native API does. `response.failed` carries them in response.error.
  const nested = typeof json.error === 'object' && json.error !== null ? json.error : undefined;
  const inner = (
    ev.type === 'error' ? (nested ?? json) : (responseOf(json) as unknown as Record<string, unknown> | undefined)?.error
  ) as { code?: unknown; type?: unknown; message?: unknown } | undefined;
  const code = typeof inner?.code === 'string' ? inner.code : typeof inner?.type === 'string' ? inner.type : '';
  const message = typeof inner?.message === 'string' && inner.message ? inner.message : 'no details';
  if (/rate_limit|usage_limit/.test(code))
    return new ProxyError('rate_limit', `The response API's rate or usage limit was reached (${message})`);
  if (/quota|usage_not_included|permission/.test(code))
    return new ProxyError('permission', `The response API refused access (${message})`);
  if (/server_error|overloaded|unavailable/.test(code))
    return new ProxyError('unavailable', `The response API failed (${message}); try again later`, { status: 503 });
  if (/invalid|context_length|unsupported/.test(code))
    return new ProxyError('invalid_request', `The response API rejected the request: ${message}`);
  return new ProxyError('upstream', `The response API failed to answer (${code || 'error'}: ${message})`);
}
