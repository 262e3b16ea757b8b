// Opt-in body capture for the inspector (CAPTURE_BODIES, docs/usage.md "Privacy"). Off by default. When on, the
// bodies of the last N requests are kept IN MEMORY only (never written to the database or any file), redacted
// like the logs by the one redaction module (redact.ts: key and token shapes, the proxy's access key as a literal,
// credential headers of any common name replaced whole), each body cut at a byte cap,
// and the whole store bounded in bytes as well as in count.

import { redactHeaders, redactSecrets } from '../redact.js';
import type { CapturedBodies } from './types.js';

/** What the pipeline hands over: bodies as text, bytes or parsed JSON; headers as Node has them. */
export interface CaptureInput {
  request?: string | Buffer | unknown;
  response?: string | Buffer | unknown;
  headers?: Record<string, string | string[] | undefined>;
}

const MAX_BODY_BYTES = 64 * 1024;
const MAX_TOTAL_BYTES = 32 * 1024 * 1024;

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
  return {
    text: Buffer.from(text)
      .subarray(0, MAX_BODY_BYTES)
      .toString('utf8')
      .replace(/\uFFFD$/, ''),
    cut: true,
  };
}

/**
 * Redacted BEFORE the byte cap, so a key that straddles the cut is never kept as a fragment too short to be
 * recognised. Only the first 2 x MAX_BODY_BYTES characters are scanned: the kept part lies inside them.
 */
function redacted(text: string | null): string | null {
  if (text === null) return null;
  return redactSecrets(text.length > 2 * MAX_BODY_BYTES ? text.slice(0, 2 * MAX_BODY_BYTES) : text);
}

/** Pure: the stored form of one request's bodies. */
function redactCapture(input: CaptureInput): CapturedBodies {
  const request = cap(redacted(asText(input.request)));
  const response = cap(redacted(asText(input.response)));
  const headers = redactHeaders(input.headers ?? {});
  return {
    request: request.text,
    response: response.text,
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
