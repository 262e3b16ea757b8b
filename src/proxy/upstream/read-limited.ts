// The bounded reads of an upstream body: one for a body that is not passed on (an error answer, an unexpected
// content type): enough to quote the upstream's message, never so much that a misbehaving upstream can fill the
// proxy's memory; and one for a non-streamed answer that is passed on whole when it is of modest size.

import type { Readable } from 'node:stream';

/** Bytes of an upstream error body that are read; the rest is dropped with the connection. */
export const errorBodyLimit = 64 * 1024;

interface DestroyableBody extends AsyncIterable<Uint8Array> {
  destroy?(): unknown;
}

/** The body as text, cut at `limit` bytes (the body is destroyed when it is longer). A failed read is thrown. */
export async function readLimited(body: DestroyableBody, limit = errorBodyLimit): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const piece = Buffer.from(chunk.buffer, chunk.byteOffset, Math.min(chunk.length, limit - size));
    parts.push(piece);
    size += piece.length;
    if (size >= limit) {
      body.destroy?.();
      break;
    }
  }
  return Buffer.concat(parts).toString('utf8');
}

/** What readUpTo read: the whole body when it ended within the bound, else the chunks read so far. */
interface BoundedRead {
  whole?: Buffer;
  /** Every chunk read, in order (the whole body's pieces, or the head of a longer one). */
  head: Buffer[];
}

/**
 * Reads an answer body that is passed on until it ends, or until more than `limit` bytes came (the stream is then
 * paused and left to the caller with what was read so far). Plain 'data' events, not async iteration: no promise
 * and no turn of the event loop per chunk, so the answer is complete the moment its last byte is read. A body
 * that fails or closes before its end rejects.
 */
export function readUpTo(body: Readable, limit: number): Promise<BoundedRead> {
  return new Promise((resolve, reject) => {
    const head: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer): void => {
      head.push(chunk);
      size += chunk.length;
      if (size > limit) {
        body.pause();
        stop();
        resolve({ head });
      }
    };
    const onEnd = (): void => {
      stop();
      resolve({ whole: head.length === 1 ? head[0] : Buffer.concat(head, size), head });
    };
    const onError = (err: Error): void => {
      stop();
      reject(err);
    };
    const onClose = (): void => onError(new Error('The answer body closed before its end'));
    if (body.errored) return reject(body.errored);
    if (body.destroyed) return onClose();
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}
