// The text of an upstream body that is not passed on (an error answer, an unexpected content type, a token
// endpoint's answer): enough to quote the upstream's message, never so much that a misbehaving upstream can fill
// the proxy's memory. Read by the one bounded reader (http/bounded-read.ts), which also reads a non-streamed answer
// whole up to a bound.

import type { Readable } from 'node:stream';
import { discardRest, readUpTo } from '../http/bounded-read.js';

/** Bytes of an upstream error body that are read; the rest is dropped with the connection. */
export const errorBodyLimit = 64 * 1024;

/** The body as text, cut at `limit` bytes (the body is destroyed when it is longer). A failed read is thrown. */
export async function readLimited(body: Readable, limit = errorBodyLimit): Promise<string> {
  const read = await readUpTo(body, limit);
  if (read.whole) return read.whole.toString('utf8');
  discardRest(body);
  return Buffer.concat(read.head, read.size).toString('utf8', 0, limit);
}
