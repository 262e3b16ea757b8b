// DirectBackend (docs/architecture.md "The flow of one chat"): sends a request to the provider with the credential
// the client's auth calls for, streaming, and yields the provider's native stream events as they arrive (stream).
// For a client that does not stream, a request whose max_tokens is within profile.api.nonStreamingMaxTokens is sent without `stream` and answered with the one message the provider
// sends (message): no event to parse or collect, when the provider's own estimate of how long such an answer may
// take fits the first-byte deadline, so UPSTREAM_FIRST_BYTE_TIMEOUT_MS holds on this path as on every other
// (docs/direct-mode.md "`/api/v1/chat/completions`: DirectBackend").
// The SSE is read by the one upstream reader (upstream/sse-reader.ts, push form); every event is checked to be an object with
// a `type` before it is handed on. Errors before the first event are thrown as ProxyErrors (the route answers with a
// real status); later ones are thrown mid-iteration and the route reports them in the stream.

import type { Readable } from 'node:stream';
import { ProxyError } from '../../errors.js';
import type { Backend, BackendContext } from '../../chat/backend.js';
import type { NativeMessage, NativeRequest, NativeStreamEvent } from '../../formats/native.js';
import { mapNativeError } from '../../formats/map-native-error.js';
import type { ProviderAnswer, ProviderClient, ProviderRequest } from '../../upstream/provider-client.js';
import type { WholeOrStream } from '../../upstream/whole-or-stream.js';
import { discardRest, readUpTo } from '../../http/bounded-read.js';
import { errorBodyLimit, readLimited } from '../../upstream/read-limited.js';
import { SseReader, type SseMessage } from '../../upstream/sse-reader.js';
import { fromErrorAnswer, fromTransportError } from '../../upstream/upstream-error.js';

/** Built once per proxy (components.ts); each request brings its credential in the BackendContext. */
interface DirectBackendOptions {
  client: ProviderClient;
  /** Path of the messages endpoint under the API base (profile.api.messagesPath). */
  messagesPath: string;
  /** A non-streaming chat with max_tokens up to this is asked for as one message (profile.api.nonStreamingMaxTokens). */
  nonStreamingMaxTokens: number;
  /** ...when max_tokens times this fits the first-byte deadline (profile.api.nonStreamingMsPerToken). */
  nonStreamingMsPerToken: number;
}

/**
 * The largest non-streamed message read (bytes): far above what 8,192 output tokens make, even as tool input
 * JSON, and a bound on what a misbehaving upstream can make the proxy hold.
 */
const messageLimitBytes = 16 * 1024 * 1024;

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A 200 body of a non-streamed request -> the native message, checked as far as the translators read it (a
 * content array of typed blocks, a model name, a usage object); `{type:'error'}` is the provider's error, mapped as
 * a stream's error event is.
 */
function toMessage(text: string): NativeMessage {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new ProxyError('upstream', 'The provider answered a non-streamed request with a body that is not JSON');
  }
  if (!isObject(data))
    throw new ProxyError('upstream', 'The provider answered a non-streamed request with JSON that is not an object');
  if (data.type === 'error') {
    const e = isObject(data.error) ? data.error : {};
    throw mapNativeError({
      type: typeof e.type === 'string' ? e.type : 'api_error',
      message: typeof e.message === 'string' ? e.message : '',
    });
  }
  if (data.type !== 'message') {
    throw new ProxyError(
      'upstream',
      `The provider answered a non-streamed request with ${typeof data.type === 'string' ? `a ${data.type.slice(0, 40)}` : 'an object without a type'} instead of a message`,
    );
  }
  if (!Array.isArray(data.content) || !data.content.every((b) => isObject(b) && typeof b.type === 'string')) {
    throw new ProxyError(
      'upstream',
      'The provider answered a non-streamed request with a message whose content is not a list of blocks',
    );
  }
  if (typeof data.model !== 'string') data.model = '';
  if (!isObject(data.usage)) data.usage = {};
  if (data.stop_reason === undefined) data.stop_reason = null;
  if (data.stop_sequence === undefined) data.stop_sequence = null;
  return data as unknown as NativeMessage;
}

/** Who pays for a request sent with this context's credential, as far as the credential tells (usage/billing-lane.ts). */
function credentialKind(context: BackendContext): 'api-key' | 'oauth' {
  return context.auth?.kind === 'api-key' ? 'api-key' : 'oauth';
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
    return {
      type: 'error',
      error: {
        type: typeof e.type === 'string' ? e.type : 'api_error',
        message: typeof e.message === 'string' ? e.message : '',
      },
    };
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

  async *stream(
    req: NativeRequest,
    signal: AbortSignal,
    context: BackendContext = {},
  ): AsyncGenerator<NativeStreamEvent> {
    const { client } = this.opts;
    const answer = await this.open(req, signal, context);
    try {
      // The push reader, fed here, rather than readSse's generator: one async-generator layer less per event.
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
   * The whole message, asked for without `stream` when max_tokens is within opts.nonStreamingMaxTokens and the
   * provider's estimate of its time (max_tokens × opts.nonStreamingMsPerToken) fits the first-byte deadline;
   * undefined (nothing sent) otherwise, and the route streams and collects as before. The provider sends nothing
   * until such an answer is complete, so the first-byte deadline bounds the whole wait: a provider that never
   * answers gets the same 504 at UPSTREAM_FIRST_BYTE_TIMEOUT_MS as on a streamed request. The idle deadline still
   * bounds a body that stalls once it started, and TCP keep-alive (undici's connector) keeps the quiet connection
   * from being dropped as idle on the way.
   */
  message(req: NativeRequest, signal: AbortSignal, context: BackendContext = {}): Promise<NativeMessage> | undefined {
    const { nonStreamingMaxTokens: bound, nonStreamingMsPerToken: perToken, client } = this.opts;
    if (!(bound > 0 && req.max_tokens <= bound)) return undefined;
    if (req.max_tokens * perToken > client.timeouts.upstreamFirstByteTimeoutMs) return undefined;
    return this.whole(req, signal, context);
  }

  private async whole(req: NativeRequest, signal: AbortSignal, context: BackendContext): Promise<NativeMessage> {
    const { client } = this.opts;
    // Read whole as it arrives (upstream/whole-or-stream.ts): no body stream to read it from afterwards.
    const answer: WholeOrStream = await client.exchange(
      this.request(signal, context, {
        headers: { 'content-type': 'application/json', ...context.headers },
        body: JSON.stringify(req),
      }),
      messageLimitBytes,
    );
    context.billing?.providerAnswer(answer.headers, credentialKind(context));
    const ok = answer.statusCode >= 200 && answer.statusCode < 300;
    if (answer.whole) {
      if (ok) return toMessage(answer.whole.toString('utf8'));
      throw fromErrorAnswer(
        answer.statusCode,
        answer.headers,
        answer.whole.toString('utf8', 0, Math.min(answer.whole.length, errorBodyLimit)),
      );
    }
    // An event stream, or an answer larger than the bound: read as before, to the same errors.
    const body = answer.body;
    if (!ok) throw await this.refusal(answer.statusCode, answer.headers, body);
    try {
      const read = await readUpTo(body, messageLimitBytes);
      if (!read.whole)
        throw new ProxyError(
          'upstream',
          `The provider's non-streamed answer is larger than ${messageLimitBytes} bytes`,
        );
      return toMessage(read.whole.toString('utf8'));
    } catch (err) {
      throw fromTransportError(err, client.timeouts);
    } finally {
      discardRest(body);
    }
  }

  /** Sends the chat upstream streaming and returns the answer once it is known to be an event stream. */
  private async open(req: NativeRequest, signal: AbortSignal, context: BackendContext): Promise<ProviderAnswer> {
    const answer = await this.send(signal, context, {
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...context.headers },
      body: JSON.stringify(withStream(req)),
    });
    try {
      const type = String(answer.headers['content-type'] ?? '');
      if (!type.includes('text/event-stream')) {
        throw new ProxyError(
          'upstream',
          `The provider answered a streaming request with ${type || 'no content type'} instead of an event stream`,
        );
      }
      return answer;
    } catch (err) {
      if (!answer.body.destroyed) answer.body.destroy();
      throw err;
    }
  }

  /** Sends the chat with the request's credential; a non-2xx answer is thrown as the provider's error (fromErrorAnswer). */
  private async send(
    signal: AbortSignal,
    context: BackendContext,
    how: Pick<ProviderRequest, 'headers' | 'body' | 'firstByteTimeoutMs'>,
  ): Promise<ProviderAnswer> {
    const answer = await this.opts.client.send(this.request(signal, context, how));
    context.billing?.providerAnswer(answer.headers, credentialKind(context));
    if (answer.statusCode >= 200 && answer.statusCode < 300) return answer;
    throw await this.refusal(answer.statusCode, answer.headers, answer.body);
  }

  /** A chat request to the provider's messages path, with the client's auth or else the CLI's login. */
  private request(
    signal: AbortSignal,
    context: BackendContext,
    how: Pick<ProviderRequest, 'headers' | 'body' | 'firstByteTimeoutMs'>,
  ): ProviderRequest {
    return {
      method: 'POST',
      path: this.opts.messagesPath,
      auth: context.auth ?? { kind: 'cli-oauth' },
      signal,
      ...how,
    };
  }

  /** The provider's error answer as ours, quoting its text up to the bound (read-limited.ts); its body is let go. */
  private async refusal(statusCode: number, headers: ProviderAnswer['headers'], body: Readable): Promise<ProxyError> {
    let text = '';
    try {
      text = await readLimited(body);
    } catch (err) {
      throw fromTransportError(err, this.opts.client.timeouts);
    } finally {
      if (!body.destroyed) body.destroy();
    }
    return fromErrorAnswer(statusCode, headers, text);
  }
}
