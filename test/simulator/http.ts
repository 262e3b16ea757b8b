// Small node:http helpers for the simulator: JSON answers, SSE writing with one event per write, pauses that end
// early when the client goes away, and the provider's error bodies and rate-limit headers.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FailWith, SimulatorState } from './types.js';

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  res.end(text);
}

/**
 * A JSON answer without a content-length: chunked transfer in `pieces` writes, each after a turn of the event loop
 * (setImmediate) or `intervalMs`, so a client can see them as separate reads, as behind a re-chunking CDN. 0
 * pieces: sendJson. `atHalfway` (a streamFault: messages.ts) takes over after half the pieces, instead of the rest.
 */
export async function sendJsonChunked(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string>,
  pieces: number,
  opts: { intervalMs?: number; atHalfway?: () => Promise<void> } = {},
): Promise<void> {
  if (pieces <= 0) return sendJson(res, status, body, headers);
  if (res.destroyed) return;
  const bytes = Buffer.from(JSON.stringify(body));
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
  const size = Math.ceil(bytes.length / Math.max(1, pieces));
  for (let at = 0, n = 0; at < bytes.length; at += size, n++) {
    if (n > 0 && opts.atHalfway && n >= pieces / 2) return opts.atHalfway();
    if (
      n > 0 &&
      !(await (opts.intervalMs
        ? pause(opts.intervalMs, res)
        : new Promise((r) => setImmediate(() => r(!res.destroyed)))))
    )
      return;
    res.write(bytes.subarray(at, at + size));
  }
  res.end();
}

/** Starts an SSE answer and sends the headers at once, so time to first byte is observable. */
export function startSse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  res.flushHeaders();
  res.socket?.setNoDelay(true);
}

/** One event, one write: `event:` and `data:` lines and the blank line. Returns false when the client is gone. */
export function writeSse(res: ServerResponse, event: string, data: unknown): boolean {
  if (res.destroyed || res.writableEnded) return false;
  res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  return true;
}

/** Waits ms, or less when the response closes first. Resolves true when the response is still usable. */
export function pause(ms: number, res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  if (ms <= 0) return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      res.off('close', done);
      resolve(!res.destroyed);
    };
    const timer = setTimeout(done, ms);
    res.on('close', done);
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Cuts the connection mid-answer: the client gets what was written, then a premature close (no terminating chunk),
 * which every HTTP client reports as an error. A FIN after a short pause rather than an RST, because an RST makes the
 * kernel drop data the client has not read yet, so a test could not see the deltas sent before the cut.
 */
export async function resetConnection(state: SimulatorState, res: ServerResponse): Promise<void> {
  state.serverCut.add(res);
  await pause(10, res);
  res.socket?.destroy();
}

/** The x-api-key value, else the bearer token, else undefined. */
export function credentialOf(headers: Record<string, string>): string | undefined {
  const key = headers['x-api-key'];
  if (key) return key;
  return bearerOf(headers);
}

export function bearerOf(headers: Record<string, string>): string | undefined {
  const m = /^Bearer\s+(.+)$/i.exec(headers['authorization'] ?? '');
  return m ? m[1].trim() : undefined;
}

const nativeErrorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
  529: 'overloaded_error',
};

export function nativeErrorType(status: number): string {
  return nativeErrorTypes[status] ?? 'api_error';
}

export function nativeErrorBody(status: number, message: string): unknown {
  return { type: 'error', error: { type: nativeErrorType(status), message } };
}

export function rateLimitHeaders(limited = false): Record<string, string> {
  const reset = new Date(Date.now() + 60_000).toISOString();
  return {
    'anthropic-ratelimit-requests-limit': '50',
    'anthropic-ratelimit-requests-remaining': limited ? '0' : '49',
    'anthropic-ratelimit-requests-reset': reset,
    'anthropic-ratelimit-tokens-limit': '100000',
    'anthropic-ratelimit-tokens-remaining': limited ? '0' : '99000',
    'anthropic-ratelimit-tokens-reset': reset,
  };
}

/**
 * Takes one failure from a failWith knob, or undefined when the request should succeed. Counts `times` down and
 * clears the knob when it reaches zero.
 */
export function takeFailure(state: SimulatorState, key: 'failWith' | 'respapiFailWith'): FailWith | undefined {
  const fail = state.knobs[key];
  if (!fail) return undefined;
  if (fail.times !== undefined) {
    if (fail.times <= 0) {
      state.knobs[key] = undefined;
      return undefined;
    }
    fail.times -= 1;
    if (fail.times === 0) state.knobs[key] = undefined;
  }
  return fail;
}

/** Headers of a failure answer: retry-after when asked for (always on 429), rate-limit headers at zero on 429. */
export function failureHeaders(fail: FailWith): Record<string, string> {
  const headers: Record<string, string> = {};
  if (fail.status === 429) {
    Object.assign(headers, rateLimitHeaders(true));
    headers['retry-after'] = String(fail.retryAfter ?? 1);
  } else if (fail.retryAfter !== undefined) {
    headers['retry-after'] = String(fail.retryAfter);
  }
  if (fail.status === 529 || fail.status === 500) headers['x-should-retry'] = 'true';
  return headers;
}

export function defaultFailureMessage(status: number): string {
  switch (status) {
    case 401:
      return 'invalid x-api-key';
    case 403:
      return 'Your account does not have permission to use this resource';
    case 429:
      return 'Number of requests has exceeded your rate limit (simulator)';
    case 529:
      return 'Overloaded';
    default:
      return `Simulated ${status} error`;
  }
}
