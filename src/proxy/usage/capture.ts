// Opt-in body capture for the inspector (CAPTURE_BODIES, docs/usage.md "Privacy"). Off by default. When on, the
// bodies of the last N requests are kept IN MEMORY only (never written to the database or any file), redacted
// like the logs (redactSecrets from logger.ts, credential headers dropped whole), each body cut at a byte cap,
// and the whole store bounded in bytes as well as in count.

import { redactSecrets } from '../logger.js';
import type { CapturedBodies } from './types.js';

/** What the pipeline hands over: bodies as text, bytes or parsed JSON; headers as Node has them. */
export interface CaptureInput {
  request?: string | Buffer | unknown;
  response?: string | Buffer | unknown;
  headers?: Record<string, string | string[] | undefined>;
}

export const MAX_BODY_BYTES = 64 * 1024;
export const MAX_TOTAL_BYTES = 32 * 1024 * 1024;

/** Header names whose values are credentials: shown as "[redacted]", whatever they look like. */
const secretHeaders = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'x-proxy-access-key', 'cookie', 'set-cookie']);

function asText(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') return body;
  if (Buffer.isBuffer(body)) return body.toString('utf8');
  try {
    return JSON.stringify(body) ?? null;
  } catch {
    return '[unserialisable body]';
  }
}

function cap(text: string | null): { text: string | null; cut: boolean } {
  if (text === null) return { text, cut: false };
  if (Buffer.byteLength(text) <= MAX_BODY_BYTES) return { text, cut: false };
  // Cut on a character boundary: decoding a byte slice drops a split multi-byte character's tail.
  return { text: Buffer.from(text).subarray(0, MAX_BODY_BYTES).toString('utf8').replace(/\uFFFD$/, ''), cut: true };
}

/** Pure: the stored form of one request's bodies. */
export function redactCapture(input: CaptureInput): CapturedBodies {
  const request = cap(asText(input.request));
  const response = cap(asText(input.response));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.headers ?? {})) {
    if (value === undefined) continue;
    const n = name.toLowerCase();
    headers[n] = secretHeaders.has(n) ? '[redacted]' : redactSecrets(Array.isArray(value) ? value.join(', ') : value);
  }
  return {
    request: request.text === null ? null : redactSecrets(request.text),
    response: response.text === null ? null : redactSecrets(response.text),
    headers,
    truncated: request.cut || response.cut,
  };
}

function sizeOf(c: CapturedBodies): number {
  let n = (c.request?.length ?? 0) + (c.response?.length ?? 0);
  for (const [k, v] of Object.entries(c.headers)) n += k.length + v.length;
  return n * 2; // JS strings are UTF-16 in memory
}

/** The last `count` captures, oldest evicted first, within MAX_TOTAL_BYTES. */
export class CaptureStore {
  private readonly items = new Map<string, { bodies: CapturedBodies; size: number }>();
  private bytes = 0;

  constructor(private readonly count: number) {}

  put(requestId: string, input: CaptureInput): void {
    const bodies = redactCapture(input);
    const size = sizeOf(bodies);
    this.delete(requestId);
    this.items.set(requestId, { bodies, size });
    this.bytes += size;
    for (const key of this.items.keys()) {
      if (this.items.size <= this.count && this.bytes <= MAX_TOTAL_BYTES) break;
      this.delete(key);
    }
  }

  get(requestId: string): CapturedBodies | undefined {
    return this.items.get(requestId)?.bodies;
  }

  get size(): number {
    return this.items.size;
  }

  private delete(key: string): void {
    const item = this.items.get(key);
    if (!item) return;
    this.bytes -= item.size;
    this.items.delete(key);
  }
}
