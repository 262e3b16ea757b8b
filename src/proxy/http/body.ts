// JSON bodies only (docs/interface.md "Limits": application/json is the only accepted input type). The body is read
// once, kept as raw bytes for routes that forward it untouched (direct mode), and parsed. Every refusal is a
// ProxyError, so the client gets it in its route family's shape (docs/interface.md "Errors"), never a 500
// (docs/security.md "Another local user or process"):
// - larger than BODY_LIMIT_BYTES: 413;
// - not finished within BODY_TIMEOUT_MS of the headers (a client dripping bytes): 408, and the connection is
//   closed, because the rest of a body we stopped reading cannot be skipped safely;
// - nested deeper than maxJsonDepth: 400 naming the limit. JSON.parse itself copes with any depth, but translators
//   and serialisers further on recurse over client data and would hit the stack limit (at about 4,000 levels)
//   as a 500. The depth is measured on the raw bytes with a loop, before parsing, so the check cannot itself
//   overflow; it costs one pass over the body;
// - malformed JSON: 400 naming where it broke.

import type { IncomingMessage } from 'node:http';
import { ProxyError } from '../errors.js';
import { ClosedBeforeEnd, readUpTo } from './bounded-read.js';
import type { ProxyMiddleware } from './types.js';

/**
 * Deepest accepted nesting of objects and arrays. Real bodies stay far below it: a chat request spends about six
 * levels reaching a tool's JSON Schema (body > tools > [i] > function > parameters > schema), and each schema level
 * adds two (properties > name); generated schemas for deeply nested types rarely pass 30 schema levels. 256 leaves
 * room for 120 schema levels, is twice the limit common JSON libraries enforce by default (128), and sits more
 * than ten times below where recursive code on this runtime's default stack fails (about 4,000 levels).
 */
export const defaultMaxJsonDepth = 256;

/** Default deadline for the body (config.bodyTimeoutMs, BODY_TIMEOUT_MS, has the same default). */
const defaultBodyTimeoutMs = 30_000;

interface JsonBodyOptions {
  /** Deadline for the whole body, counted from when the route starts reading it. */
  timeoutMs?: number;
  maxDepth?: number;
}

function isJsonType(contentType: string): boolean {
  const mime = contentType.split(';')[0].trim().toLowerCase();
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The byte offset at which the nesting of `{`/`[` outside strings first exceeds maxDepth, or -1. Works on UTF-8
 * bytes: every structural character is ASCII, and no byte of a multi-byte character is. Malformed JSON is left to
 * JSON.parse; this only counts.
 */
export function depthExceededAt(raw: Uint8Array, maxDepth: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return i;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return -1;
}

function tooLarge(limitBytes: number): ProxyError {
  return new ProxyError(
    'payload_too_large',
    `Request body is larger than the limit of ${limitBytes} bytes (BODY_LIMIT_BYTES)`,
    { field: 'body', issue: `larger than ${limitBytes} bytes` },
  );
}

function aborted(): ProxyError {
  return new ProxyError('invalid_request', 'Client aborted the request body', { field: 'body', issue: 'aborted' });
}

function unreadable(cause?: unknown): ProxyError {
  return new ProxyError('invalid_request', 'Could not read the request body', {
    field: 'body',
    issue: 'unreadable',
    cause,
  });
}

function bodyTimeout(timeoutMs: number): ProxyError {
  return new ProxyError(
    'timeout',
    `Request body not received within ${timeoutMs} ms (BODY_TIMEOUT_MS); send the whole body at once`,
    {
      status: 408,
      field: 'body',
      issue: `not received within ${timeoutMs} ms`,
      // Unread bytes may still be on their way: the connection cannot carry another request.
      headers: { connection: 'close' },
    },
  );
}

/**
 * The whole body, read by the one bounded reader (bounded-read.ts: plain 'data' events, one timer). Rejects with a
 * ProxyError: 413 as soon as the declared or received length passes the limit, 408 when the deadline passes first
 * (the connection is then closed, because unread bytes may still be on their way), 400 when the client aborts or
 * the body does not match its declared length. After a refusal the request is paused; Node's server drains or
 * closes what is left once the answer is written.
 */
export function readBody(
  req: IncomingMessage,
  limitBytes: number,
  declaredLength: string | undefined,
  timeoutMs: number,
): Promise<Buffer> {
  const declared = declaredLength === undefined ? undefined : Number(declaredLength);
  if (declared !== undefined && declared > limitBytes) {
    req.pause();
    return Promise.reject(tooLarge(limitBytes));
  }
  return readUpTo(req, limitBytes, { deadline: { ms: timeoutMs, error: () => bodyTimeout(timeoutMs) } }).then(
    ({ whole, size }) => {
      if (whole === undefined) throw tooLarge(limitBytes);
      if (declared !== undefined && size !== declared)
        throw unreadable(new Error(`received ${size} bytes of a declared ${declared}`));
      return whole;
    },
    (err: NodeJS.ErrnoException) => {
      if (err instanceof ProxyError) throw err;
      // A client that goes away mid-body surfaces as an 'aborted' error (ECONNRESET) or a close before the end.
      throw err instanceof ClosedBeforeEnd || req.aborted || err.code === 'ECONNRESET' ? aborted() : unreadable(err);
    },
  );
}

export function jsonBody(limitBytes: number, options: JsonBodyOptions = {}): ProxyMiddleware {
  const timeoutMs = options.timeoutMs ?? defaultBodyTimeoutMs;
  const maxDepth = options.maxDepth ?? defaultMaxJsonDepth;
  return async (ctx, next) => {
    if (!isJsonType(ctx.get('content-type'))) {
      throw new ProxyError(
        'unsupported_media_type',
        `Content-Type must be application/json (got ${ctx.get('content-type') || 'none'})`,
        {
          field: 'content-type',
          issue: 'must be application/json',
        },
      );
    }
    const raw = await readBody(ctx.req, limitBytes, ctx.get('content-length') || undefined, timeoutMs);
    if (raw.length === 0)
      throw new ProxyError('invalid_request', 'Request body is empty; a JSON object is required', {
        field: 'body',
        issue: 'empty',
      });
    const deepAt = depthExceededAt(raw, maxDepth);
    if (deepAt >= 0) {
      throw new ProxyError(
        'invalid_request',
        `Request body nests JSON objects and arrays deeper than the limit of ${maxDepth} levels (at byte ${deepAt})`,
        {
          field: 'body',
          issue: `nested deeper than ${maxDepth} levels`,
        },
      );
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      throw new ProxyError('invalid_request', `Malformed JSON in request body: ${(err as Error).message}`, {
        field: 'body',
        issue: 'malformed JSON',
      });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ProxyError('invalid_request', 'Request body must be a JSON object', {
        field: 'body',
        issue: 'not a JSON object',
      });
    }
    ctx.state.rawBody = raw;
    ctx.state.body = parsed;
    await next();
  };
}
