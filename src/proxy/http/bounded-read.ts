// The one bounded reader of a body: the client's request body (http/body.ts) and an upstream answer read whole up to
// a bound (upstream/read-limited.ts, modes/direct) keep the same books here: bytes counted, the bound, the deadline,
// and a body that fails or closes before its end. Plain 'data' events, not async iteration: no promise and no turn
// of the event loop per chunk, so the body is complete the moment its last byte is read (every request's body passes
// through here before anything goes upstream).

import type { Readable } from 'node:stream';

/** What readUpTo read: the whole body when it ended within the bound, else the chunks read so far. */
export interface BoundedRead {
  whole?: Buffer;
  /** Every chunk read, in order (the whole body's pieces, or the head of a longer one). */
  head: Buffer[];
  /** Bytes read. */
  size: number;
}

interface BoundedReadOptions {
  /** Gives up after this long: the body is paused and the read rejects with `error()`. */
  deadline?: { ms: number; error: () => Error };
}

/** The body closed (its client or upstream went away) before its end. */
export class ClosedBeforeEnd extends Error {
  constructor() {
    super('The body closed before its end');
    this.name = 'ClosedBeforeEnd';
  }
}

/**
 * Reads `body` until it ends, or until more than `limit` bytes came: the body is then paused and left to the caller
 * (to refuse it, or to pass the head and the rest on). Rejects with the body's own error, with ClosedBeforeEnd, or
 * with the deadline's error; the body is paused then too.
 */
export function readUpTo(body: Readable, limit: number, options: BoundedReadOptions = {}): Promise<BoundedRead> {
  return new Promise((resolve, reject) => {
    if (body.readableEnded) return resolve({ whole: Buffer.alloc(0), head: [], size: 0 });
    if (body.errored) return reject(body.errored);
    if (body.destroyed) return reject(new ClosedBeforeEnd());
    const head: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      clearTimeout(timer);
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const fail = (err: Error): void => {
      stop();
      body.pause();
      reject(err);
    };
    const onData = (chunk: Buffer): void => {
      head.push(chunk);
      size += chunk.length;
      if (size > limit) {
        stop();
        body.pause();
        resolve({ head, size });
      }
    };
    const onEnd = (): void => {
      stop();
      resolve({ whole: head.length === 1 ? head[0] : Buffer.concat(head, size), head, size });
    };
    const onError = (err: Error): void => fail(err);
    const onClose = (): void => fail(new ClosedBeforeEnd());
    const deadline = options.deadline;
    const timer = deadline ? setTimeout(() => fail(deadline.error()), deadline.ms) : undefined;
    body.on('data', onData).on('end', onEnd).on('error', onError).on('close', onClose);
  });
}

/**
 * Drops the rest of a body the reader stopped at (longer than its bound, or no longer wanted). An upstream's body
 * (undici's) that is destroyed before its end emits an "aborted" error, which nobody waits for here: it is swallowed,
 * or it would be an uncaught error event.
 */
export function discardRest(body: Readable): void {
  if (body.destroyed || body.readableEnded) return;
  body.on('error', () => undefined);
  body.destroy();
}
