// DirectBackend (DESIGN.md "The flow of one chat"): sends a native request to the provider API with the credential
// the client's auth calls for, always streaming, and yields the provider's native stream events as they arrive.
// The SSE is parsed with eventsource-parser (STYLE.md habit 5); every event is checked to be an object with a
// `type` before it is handed on. Errors before the first event are thrown as ProxyErrors (the route answers with a
// real status); later ones are thrown mid-iteration and the route reports them in the stream.

import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProxyError } from '../errors.js';
import type { Backend } from '../formats/backend.js';
import type { NativeRequest, NativeStreamEvent } from '../formats/native.js';
import type { Logger } from '../logger.js';
import type { ClientAuth } from '../upstream/client-auth.js';
import type { ProviderClient } from '../upstream/provider-client.js';
import { fromErrorAnswer, fromTransportError } from '../upstream/upstream-error.js';

export interface DirectBackendOptions {
  client: ProviderClient;
  /** Path of the messages endpoint under the API base (profile.api.messagesPath). */
  messagesPath: string;
  auth: ClientAuth;
  logger: Logger;
  /** Extra request headers, e.g. the client's own feature flags. */
  headers?: Record<string, string>;
  /** Told about every provider answer: its headers carry the quota windows (docs/usage.md). */
  onAnswer?: (statusCode: number, headers: Record<string, string | string[] | undefined>) => void;
}

const errorBodyLimit = 64 * 1024;

function toEvent(msg: EventSourceMessage): NativeStreamEvent {
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

async function readLimited(body: AsyncIterable<Buffer>): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > errorBodyLimit) break;
    parts.push(chunk);
  }
  return Buffer.concat(parts).toString('utf8');
}

export class DirectBackend implements Backend {
  constructor(private readonly opts: DirectBackendOptions) {}

  async *stream(req: NativeRequest, signal: AbortSignal): AsyncGenerator<NativeStreamEvent> {
    const { client } = this.opts;
    const answer = await client.send({
      method: 'POST',
      path: this.opts.messagesPath,
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...this.opts.headers },
      body: JSON.stringify({ ...req, stream: true }),
      auth: this.opts.auth,
      signal,
    });
    this.opts.onAnswer?.(answer.statusCode, answer.headers);
    try {
      if (answer.statusCode < 200 || answer.statusCode >= 300) {
        let text = '';
        try {
          text = await readLimited(answer.body as AsyncIterable<Buffer>);
        } catch (err) {
          throw fromTransportError(err, client.timeouts);
        }
        throw fromErrorAnswer(answer.statusCode, answer.headers, text);
      }
      const type = String(answer.headers['content-type'] ?? '');
      if (!type.includes('text/event-stream')) {
        throw new ProxyError('upstream', `The provider answered a streaming request with ${type || 'no content type'} instead of an event stream`);
      }
      const queue: NativeStreamEvent[] = [];
      let parseError: ProxyError | undefined;
      const parser = createParser({
        onEvent: (msg) => {
          if (parseError) return;
          try {
            queue.push(toEvent(msg));
          } catch (err) {
            parseError = err as ProxyError;
          }
        },
      });
      const decoder = new TextDecoder();
      try {
        for await (const chunk of answer.body as AsyncIterable<Buffer>) {
          parser.feed(decoder.decode(chunk, { stream: true }));
          while (queue.length > 0) yield queue.shift() as NativeStreamEvent;
          if (parseError) throw parseError;
        }
      } catch (err) {
        if (err instanceof ProxyError) throw err;
        throw fromTransportError(err, client.timeouts);
      }
      parser.feed(decoder.decode());
      parser.reset({ consume: true });
      while (queue.length > 0) yield queue.shift() as NativeStreamEvent;
      if (parseError) throw parseError;
    } finally {
      // A consumer that stops early (client gone, error) must not leave the upstream request running.
      if (!answer.body.destroyed) answer.body.destroy();
    }
  }
}
