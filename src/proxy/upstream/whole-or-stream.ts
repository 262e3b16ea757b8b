// How a provider answer is read when the proxy passes it on (modes/direct/forward.ts) or needs all of it
// (modes/direct/direct-backend.ts): through one undici dispatch handler instead of `request()`'s body stream. A
// non-streamed answer of modest size is collected as it arrives and handed over as one Buffer when it ends: no
// Readable, no 'data' and 'end' listeners, no ticks of a stream's own, and no promise between the last byte and the
// caller (docs/performance.md "The chunked answer"). An event stream, an answer announced larger than the bound, and one that
// grows past it while it is read are handed over as a Readable instead (what was read so far first), with undici's
// pause and resume as its back-pressure, so they pass on chunk by chunk as before.
// The request's AbortSignal (the client went away) aborts the upstream request at any point; the upstream's own
// failures (a reset, the first-byte and idle deadlines) reject before the answer is handed over, and destroy the
// stream after.

import { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

/** A provider answer, either read whole or still arriving. */
export type WholeOrStream =
  | { statusCode: number; headers: Record<string, string | string[] | undefined>; whole: Buffer; body?: undefined }
  | { statusCode: number; headers: Record<string, string | string[] | undefined>; whole?: undefined; body: Readable };

type Controller = Dispatcher.DispatchController;

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const err = new Error('The request was aborted') as Error & { code: string };
  err.name = 'AbortError';
  err.code = 'UND_ERR_ABORTED';
  return err;
}

/**
 * The dispatch handler (undici's handler interface) behind ProviderClient.exchange. Settles `done` once: with the
 * whole answer, with a stream of it, or with the failure that came first.
 */
export class WholeOrStreamHandler implements Dispatcher.DispatchHandler {
  private controller: Controller | undefined;
  private statusCode = 0;
  private headers: Record<string, string | string[] | undefined> = {};
  private parts: Buffer[] = [];
  private size = 0;
  private stream: Readable | undefined;
  private settled = false;
  private ended = false;
  private readonly onAbort = (): void => {
    if (this.signal) this.abort(abortError(this.signal));
  };

  constructor(
    private readonly limit: number,
    private readonly done: { resolve: (answer: WholeOrStream) => void; reject: (err: unknown) => void },
    private readonly signal: AbortSignal | undefined,
    /** Told of the answer's status and headers as soon as they arrive (the quota windows ride on them). */
    private readonly observeHeaders: (headers: Record<string, string | string[] | undefined>) => void,
  ) {
    signal?.addEventListener('abort', this.onAbort, { once: true });
  }

  onRequestStart(controller: Controller): void {
    this.controller = controller;
    if (this.signal?.aborted) controller.abort(abortError(this.signal));
  }

  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // an informational answer (100 Continue): the real one follows
    this.statusCode = statusCode;
    this.headers = headers;
    this.observeHeaders(headers);
    const type = headers['content-type'];
    const sse = (Array.isArray(type) ? type[0] : (type ?? '')).toLowerCase().includes('text/event-stream');
    if (sse || Number(headers['content-length']) > this.limit) this.toStream(controller);
  }

  onResponseData(controller: Controller, chunk: Buffer): void {
    if (this.stream) {
      if (!this.stream.push(chunk)) controller.pause();
      return;
    }
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.size > this.limit) this.toStream(controller);
  }

  onResponseEnd(): void {
    this.ended = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    if (this.stream) {
      this.stream.push(null);
      return;
    }
    const whole = this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.settle().resolve({ statusCode: this.statusCode, headers: this.headers, whole });
  }

  onResponseError(_controller: Controller, err: Error): void {
    this.signal?.removeEventListener('abort', this.onAbort);
    if (this.stream) this.stream.destroy(err);
    else if (!this.settled) this.settle().reject(err);
  }

  /** Ends the upstream request from our side (its answer is no longer wanted). */
  private abort(err: Error): void {
    if (this.controller) this.controller.abort(err);
    else if (!this.settled) this.settle().reject(err);
  }

  private settle(): WholeOrStreamHandler['done'] {
    this.settled = true;
    return this.done;
  }

  /** From here on the answer is passed on as it arrives: a Readable with what was read so far in it. */
  private toStream(controller: Controller): void {
    const stream = new Readable({
      read: () => controller.resume(),
      destroy: (err, callback) => {
        // The reader stopped early (the client went away, the route gave up): the upstream request goes too.
        if (!this.ended && !controller.aborted)
          controller.abort(err ?? new Error('The answer was not read to its end'));
        callback(err);
      },
    });
    this.stream = stream;
    for (const part of this.parts) stream.push(part);
    this.parts = [];
    this.settle().resolve({ statusCode: this.statusCode, headers: this.headers, body: stream });
  }
}
