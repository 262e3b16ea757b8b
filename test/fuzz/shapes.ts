// What a right-shaped answer is, per route family (docs/interface.md "Errors": compatible, native, general), written
// independently of the error shapes (src/proxy/http/error-shape.ts, src/proxy/formats/) so the fuzz and fault tests
// check the wire, not the renderer's own idea of it. Each function returns a reason when the answer is wrong,
// undefined when it is right.

import { familyOf, type Family } from '../../src/proxy/route-table.js';
import type { RawAnswer } from './bed.js';

export type { Family };

/** The family a request target belongs to: its path without query or fragment (Koa's ctx.path). */
export function familyOfTarget(target: string): Family {
  const cut = target.search(/[?#]/);
  return familyOf(cut >= 0 ? target.slice(0, cut) : target);
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function detailsProblem(details: unknown): string | undefined {
  if (details === undefined) return undefined;
  if (!isObject(details) || !isString(details.field) || !isString(details.issue))
    return `details is not {field, issue}: ${JSON.stringify(details)}`;
  return undefined;
}

/** Why `body` is not an error body of `family`, or undefined. */
export function errorBodyProblem(family: Family, body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body.error)) return 'no error object';
  const e = body.error;
  if (!isString(e.message) || e.message.length === 0) return 'error.message is not a non-empty string';
  if (!isString(e.type)) return 'error.type is not a string';
  switch (family) {
    case 'compat':
      if (!isString(e.code)) return 'error.code is not a string (docs/interface.md "Compatible errors")';
      if (!(e.param === null || isString(e.param)))
        return 'error.param is neither a string nor null ("Compatible errors")';
      return undefined;
    case 'native':
      if (body.type !== 'error') return 'top-level type is not "error" (docs/interface.md "Native errors")';
      return detailsProblem(e.details);
    case 'general':
      return detailsProblem(e.details);
  }
}

/** Why an error answer (status >= 400) is wrong for its target, or undefined. */
export function errorAnswerProblem(target: string, method: string, answer: RawAnswer): string | undefined {
  if (answer.status < 400) return undefined;
  if (method === 'HEAD') return undefined;
  const type = String(answer.headers['content-type'] ?? '');
  if (!type.startsWith('application/json')) return `error answer ${answer.status} is ${type || 'untyped'}, not JSON`;
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    return `error answer ${answer.status} is not valid JSON: ${answer.text.slice(0, 200)}`;
  }
  const why = errorBodyProblem(familyOfTarget(target), body);
  return why
    ? `${answer.status} in the wrong shape for ${familyOfTarget(target)}: ${why}; body ${answer.text.slice(0, 300)}`
    : undefined;
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Server-sent events of a complete stream text. */
export function parseSseText(text: string): SseEvent[] {
  const events: SseEvent[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === '') continue;
    let event: string | undefined;
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith('event:')) event = line.slice(6).trim();
      else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''));
    }
    if (event !== undefined || data.length > 0) events.push({ event, data: data.join('\n') });
  }
  return events;
}

/** The error an SSE stream reported in-stream (an `error` event or a data object with `error`), or undefined. */
export function streamError(events: SseEvent[]): { family?: Family; body: unknown } | undefined {
  for (const e of events) {
    if (e.data === '[DONE]') continue;
    let data: unknown;
    try {
      data = JSON.parse(e.data);
    } catch {
      continue;
    }
    if (e.event === 'error' || e.event === 'response.failed' || (isObject(data) && isObject(data.error)))
      return { body: data };
  }
  return undefined;
}

/** Why a stream is malformed: a data line that is not JSON (other than [DONE]), or no events at all. */
export function streamProblem(events: SseEvent[]): string | undefined {
  if (events.length === 0) return 'stream has no events';
  for (const e of events) {
    if (e.data === '[DONE]' || e.data === '') continue;
    try {
      JSON.parse(e.data);
    } catch {
      return `stream data is not JSON: ${e.data.slice(0, 200)}`;
    }
  }
  return undefined;
}

/**
 * Why an answer is not a clear error in its route's shape, or undefined. A clear error is either an error status
 * (never 500, which is reserved for our own bugs) with the family's body and a message, or, once a stream has
 * started, an in-stream error: the compatible error object then [DONE] on compatible streams, an `error` event with the
 * native error object on native streams, the response API's own `error` event on /respapi streams.
 */
export function clearErrorProblem(target: string, answer: RawAnswer): string | undefined {
  if (answer.timedOut) return 'no answer in time';
  if (answer.error) return `connection failed without an answer: ${answer.error}`;
  if (answer.status === 500) return 'answered 500';
  if (answer.status >= 400) return errorAnswerProblem(target, 'POST', answer);
  if (answer.status !== 200) return `unexpected status ${answer.status}`;
  if (!String(answer.headers['content-type'] ?? '').startsWith('text/event-stream'))
    return `200 with a complete answer, not an error: ${answer.text.slice(0, 200)}`;
  const events = parseSseText(answer.text);
  const err = streamError(events);
  if (!err) return `stream ended without an error event: ...${answer.text.slice(-300)}`;
  const body = err.body as Record<string, unknown>;
  if (target.startsWith('/respapi')) {
    const e = (isObject(body.error) ? body.error : body) as Record<string, unknown>;
    return isString(e.message) && e.message.length > 0
      ? undefined
      : `response-API error event without a message: ${JSON.stringify(body)}`;
  }
  const family = familyOfTarget(target);
  const why = errorBodyProblem(family, body);
  if (why) return `in-stream error in the wrong shape: ${why}`;
  if (family === 'compat' && events.at(-1)?.data !== '[DONE]')
    return 'compatible stream did not end with [DONE] after its error';
  return undefined;
}
