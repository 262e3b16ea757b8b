// JSON bodies only (SPEC.md §8: application/json is the only accepted input type). The body is read once,
// with a size limit (413 past it), kept as raw bytes for routes that forward it untouched (direct mode), and
// parsed; malformed JSON is a 400 naming where it broke.

import getRawBody from 'raw-body';
import { ProxyError } from '../errors.js';
import type { ProxyMiddleware } from './types.js';

function isJsonType(contentType: string): boolean {
  const mime = contentType.split(';')[0].trim().toLowerCase();
  return mime === 'application/json' || (mime.startsWith('application/') && mime.endsWith('+json'));
}

export function jsonBody(limitBytes: number): ProxyMiddleware {
  return async (ctx, next) => {
    if (!isJsonType(ctx.get('content-type'))) {
      throw new ProxyError('unsupported_media_type', `Content-Type must be application/json (got ${ctx.get('content-type') || 'none'})`, {
        field: 'content-type',
        issue: 'must be application/json',
      });
    }
    let raw: Buffer;
    try {
      raw = await getRawBody(ctx.req, { limit: limitBytes, length: ctx.get('content-length') || undefined });
    } catch (err) {
      const e = err as { type?: string; status?: number };
      if (e.type === 'entity.too.large') {
        throw new ProxyError('payload_too_large', `Request body is larger than the limit of ${limitBytes} bytes (BODY_LIMIT_BYTES)`, { field: 'body', issue: `larger than ${limitBytes} bytes` });
      }
      if (e.type === 'request.aborted') throw new ProxyError('invalid_request', 'Client aborted the request body', { field: 'body', issue: 'aborted' });
      throw new ProxyError('invalid_request', 'Could not read the request body', { field: 'body', issue: 'unreadable', cause: err });
    }
    if (raw.length === 0) throw new ProxyError('invalid_request', 'Request body is empty; a JSON object is required', { field: 'body', issue: 'empty' });
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw.toString('utf8'));
    } catch (err) {
      throw new ProxyError('invalid_request', `Malformed JSON in request body: ${(err as Error).message}`, { field: 'body', issue: 'malformed JSON' });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new ProxyError('invalid_request', 'Request body must be a JSON object', { field: 'body', issue: 'not a JSON object' });
    }
    ctx.state.rawBody = raw;
    ctx.state.body = parsed;
    await next();
  };
}
