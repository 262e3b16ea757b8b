// DirectBackend (DESIGN.md "The flow of one chat"): sends a native request to the provider API with the credential
// the client's auth calls for, always streaming, and yields the provider's native stream events as they arrive
// (stream) or hands each to a callback (forEachEvent, for a non-streaming client).
// The SSE is read by the one upstream reader (upstream/sse-reader.ts, push form); every event is checked to be an object with
// a `type` before it is handed on. Errors before the first event are thrown as ProxyErrors (the route answers with a
// real status); later ones are thrown mid-iteration and the route reports them in the stream.

import { ProxyError } from '../errors.js';
import type { Backend, BackendContext } from './backend.js';
import type { NativeRequest, NativeStreamEvent } from '../formats/native.js';
import type { ProviderAnswer, ProviderClient } from '../upstream/provider-client.js';
import { readLimited } from '../upstream/read-limited.js';
import { SseReader, type SseMessage } from '../upstream/sse-reader.js';
import { fromErrorAnswer, fromTransportError } from '../upstream/upstream-error.js';

/** Built once per proxy (components.ts); each request brings its credential in the BackendContext. */
export interface DirectBackendOptions {
  client: ProviderClient;
  /** Path of the messages endpoint under the API base (profile.api.messagesPath). */
  messagesPath: string;
}

function toEvent(msg: SseMessage): NativeStreamEvent {
  let data: unknown;
  try {
    data = JSON.parse(msg.data);
  } catch {
    throw new ProxyError('upstream', `The provider sent a stream event that is not JSON (${msg.event ?? 'message'})`);
  }
  if (typeof data !== 'object' || data === null || typeof (data as { type?: unknown }).type !== 'string') {
    throw new ProxyError('upstream', `The provider sent a stream event without a type (${msg.event ?? 'message'})`);
  }
  const event = data as NativeStreamEvent;
  if (event.type === 'error') {
    // The translators read error.type and error.message; make sure both are strings.
    const e = (data as { error?: { type?: unknown; message?: unknown } }).error ?? {};
    return { type: 'error', error: { type: typeof e.type === 'string' ? e.type : 'api_error', message: typeof e.message === 'string' ? e.message : '' } };
  }
  return event;
}

/** The request with `stream: true`, copied key by key (a spread copy that gains a key cost twice the stringify). */
function withStream(req: NativeRequest): NativeRequest & { stream: true } {
  const out: Record<string, unknown> = {};
  for (const key in req) out[key] = req[key as keyof NativeRequest];
  out.stream = true;
  return out as NativeRequest & { stream: true };
}

export class DirectBackend implements Backend {
  constructor(private readonly opts: DirectBackendOptions) {}

  async *stream(req: NativeRequest, signal: AbortSignal, context: BackendContext = {}): AsyncGenerator<NativeStreamEvent> {
    const { client } = this.opts;
    const answer = await this.open(req, signal, context);
    try {
      // The push reader, fed here, rather than readSse's generator: one async-generator layer less per event
      // (docs/benchmarks.md "What each change bought").
      const reader = new SseReader();
      try {
        for await (const chunk of answer.body) for (const message of reader.feed(chunk)) yield toEvent(message);
        for (const message of reader.end()) yield toEvent(message);
      } catch (err) {
        throw fromTransportError(err, client.timeouts);
      }
    } finally {
      // A consumer that stops early (client gone, error) must not leave the upstream request running.
      if (!answer.body.destroyed) answer.body.destroy();
    }
  }

  /**
   * The same upstream stream as stream(), each event handed to `onEvent` as its bytes arrive: a non-streaming
   * answer is collected without a promise per event (docs/benchmarks.md "What each change bought"). Resolves when
   * the provider's stream ended, rejects with the ProxyError that ended it; an exception of `onEvent` ends the
   * upstream request and rejects with it.
   */
  async forEachEvent(req: NativeRequest, signal: AbortSignal, onEvent: (event: NativeStreamEvent) => void, context: BackendContext = {}): Promise<void> {
    const { client } = this.opts;
    const answer = await this.open(req, signal, context);
    const body = answer.body;
    const reader = new SseReader();
    await new Promise<void>((resolve, reject) => {
      let settled = false;
      /** Ends the read: `failure` (a read error, mapped here) or `thrown` (from toEvent or onEvent, kept as it is). */
      const settle = (outcome?: { failure?: unknown; thrown?: unknown }) => {
        if (settled) return;
        settled = true;
        body.off('data', onData);
        if (!outcome) return resolve();
        if (!body.destroyed) body.destroy();
        reject('failure' in outcome ? fromTransportError(outcome.failure, client.timeouts) : outcome.thrown);
      };
      const deliver = (messages: SseMessage[]) => {
        for (const message of messages) {
          if (settled) return;
          onEvent(toEvent(message));
        }
      };
      const onData = (chunk: Buffer) => {
        try {
          deliver(reader.feed(chunk));
        } catch (thrown) {
          settle({ thrown });
        }
      };
      body.on('data', onData);
      body.once('end', () => {
        try {
          deliver(reader.end());
          settle();
        } catch (thrown) {
          settle({ thrown });
        }
      });
      body.once('error', (failure) => settle({ failure }));
      // Destroyed without an end or an error: never a silent success.
      // (Checked first: an Error's stack trace costs more than the rest of a request's collection.)
      body.once('close', () => {
        if (!settled) settle({ thrown: new ProxyError('upstream', 'The provider stream closed before it ended') });
      });
    });
  }

  /** Sends the chat upstream (always streaming) and returns the answer once it is known to be an event stream. */
  private async open(req: NativeRequest, signal: AbortSignal, context: BackendContext): Promise<ProviderAnswer> {
    const { client } = this.opts;
    const answer = await client.send({
      method: 'POST',
      path: this.opts.messagesPath,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...context.headers },
      body: JSON.stringify(withStream(req)),
      auth: context.auth ?? { kind: 'cli-oauth' },
      signal,
    });
    try {
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        let text = '';
        try {
          text = await readLimited(answer.body);
        } catch (err) {
          throw fromTransportError(err, client.timeouts);
        }
        throw fromErrorAnswer(answer.statusCode, answer.headers, text);
      }
      const type = String(answer.headers['content-type'] ?? '');
      if (!type.includes('text/event-stream')) {
        throw new ProxyError('upstream', `The provider answered a streaming request with ${type || 'no content type'} instead of an event stream`);
      }
      return answer;
    } catch (err) {
      if (!answer.body.destroyed) answer.body.destroy();
      throw err;
    }
  }
}
