// The upstream side of response-API mode: one POST to <RESPAPI_BASE_URL><responsesPath> with undici, always
// streaming (the upstream only streams), carrying the bearer access token, the account and session headers and the
// profile's extra headers. Timeouts come from the upstream* settings: connect, first byte (headers) and idle
// (longest silence between body chunks). The answer's SSE is parsed with eventsource-parser (STYLE.md habit 5) and
// yielded event by event as it arrives; leaving the iteration early destroys the upstream body (the request is
// aborted), which is how a client disconnect reaches the upstream.

import { Agent, request, type Dispatcher } from 'undici';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { ProxyError } from '../errors.js';
import type { RefreshingCredential } from '../auth/refreshing-credential.js';
import type { RespapiCredential } from '../auth/respapi-credentials.js';
import type { Profile } from '../profile.js';
import { respapiUpstreamError } from './respapi-errors.js';
import type { UsageSink } from '../usage/types.js';

export interface UpstreamEvent {
  event?: string;
  data: string;
}

export interface RespapiClientOptions {
  baseUrl: string;
  profile: Profile;
  credential: RefreshingCredential<RespapiCredential>;
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  /** Receives every answer's headers: the response API reports its quota windows there (docs/usage.md). */
  usage?: Pick<UsageSink, 'upstreamHeaders'>;
}

export interface OpenedStream {
  /** Upstream response headers worth showing (request id). */
  upstreamRequestId?: string;
  events: AsyncIterable<UpstreamEvent>;
}

const errorBodyLimit = 64 * 1024;

function headerValue(h: Dispatcher.ResponseData['headers'][string]): string | undefined {
  return Array.isArray(h) ? h[0] : h;
}

function isAbort(err: unknown, signal: AbortSignal): boolean {
  return signal.aborted || (err as Error)?.name === 'AbortError';
}

/** undici's network failures, in words a user can act on. */
export function networkError(err: unknown, url: string, timeouts: { connect: number; firstByte: number; idle: number }): ProxyError {
  const code = (err as { code?: string })?.code ?? (err as { cause?: { code?: string } })?.cause?.code;
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT':
      return new ProxyError('timeout', `Could not connect to the response API at ${url} within ${timeouts.connect} ms`, { cause: err });
    case 'UND_ERR_HEADERS_TIMEOUT':
      return new ProxyError('timeout', `The response API did not start answering within ${timeouts.firstByte} ms`, { cause: err });
    case 'UND_ERR_BODY_TIMEOUT':
      return new ProxyError('timeout', `The response API went silent for ${timeouts.idle} ms mid-answer`, { cause: err });
    default:
      return new ProxyError('unavailable', `Cannot reach the response API at ${url} (${code ?? (err as Error)?.message ?? 'network error'})`, { cause: err });
  }
}

async function readLimited(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    chunks.push(b);
    size += b.length;
    if (size >= errorBodyLimit) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class RespapiClient {
  readonly url: string;
  private readonly agent: Agent;

  constructor(private readonly opts: RespapiClientOptions) {
    this.url = opts.baseUrl.replace(/\/+$/, '') + opts.profile.respapi.responsesPath;
    this.agent = new Agent({
      connect: { timeout: opts.connectTimeoutMs },
      headersTimeout: opts.firstByteTimeoutMs,
      bodyTimeout: opts.idleTimeoutMs,
    });
  }

  private get timeouts() {
    return { connect: this.opts.connectTimeoutMs, firstByte: this.opts.firstByteTimeoutMs, idle: this.opts.idleTimeoutMs };
  }

  private headers(cred: RespapiCredential, sessionId: string): Record<string, string> {
    const { respapi } = this.opts.profile;
    const h: Record<string, string> = {
      ...respapi.extraHeaders,
      'content-type': 'application/json',
      accept: 'text/event-stream',
      authorization: `Bearer ${cred.accessToken}`,
      [respapi.sessionHeader]: sessionId,
    };
    if (cred.accountId) h[respapi.accountHeader] = cred.accountId;
    return h;
  }

  /**
   * Sends the request and returns once the upstream answered 2xx with an event stream. Any other answer is thrown
   * as a ProxyError. An upstream 401 gets one forced refresh and one retry (the file may hold a token revoked early).
   */
  async open(body: Record<string, unknown>, sessionId: string, signal: AbortSignal): Promise<OpenedStream> {
    const payload = JSON.stringify(body);
    let refused: string | undefined;
    for (let attempt = 0; ; attempt++) {
      let cred = await this.opts.credential.get();
      // After a 401, refresh only when no concurrent request already replaced the refused token.
      if (refused !== undefined && cred.accessToken === refused) cred = await this.opts.credential.forceRefresh();
      let res: Dispatcher.ResponseData;
      try {
        res = await request(this.url, { method: 'POST', headers: this.headers(cred, sessionId), body: payload, dispatcher: this.agent, signal });
      } catch (err) {
        if (isAbort(err, signal)) throw err;
        throw networkError(err, this.url, this.timeouts);
      }
      const status = res.statusCode;
      this.opts.usage?.upstreamHeaders('respapi', res.headers);
      if (status >= 200 && status < 300) {
        const type = headerValue(res.headers['content-type']) ?? '';
        if (!type.includes('text/event-stream')) {
          const text = await readLimited(res.body).catch(() => '');
          throw new ProxyError('upstream', `The response API answered ${type || 'no content type'} instead of an event stream (${text.slice(0, 200)})`);
        }
        return { upstreamRequestId: headerValue(res.headers['x-request-id']), events: this.iterate(res.body, signal) };
      }
      let text = '';
      try {
        text = await readLimited(res.body);
      } catch (err) {
        if (isAbort(err, signal)) throw err;
      }
      if (status === 401 && attempt === 0) {
        refused = cred.accessToken;
        continue;
      }
      throw respapiUpstreamError(status, text, headerValue(res.headers['retry-after']), this.opts.profile);
    }
  }

  private async *iterate(body: Dispatcher.ResponseData['body'], signal: AbortSignal): AsyncGenerator<UpstreamEvent> {
    const queue: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (msg) => queue.push(msg) });
    const decoder = new TextDecoder();
    try {
      for await (const chunk of body) {
        parser.feed(decoder.decode(chunk as Buffer, { stream: true }));
        while (queue.length > 0) {
          const msg = queue.shift()!;
          yield { event: msg.event, data: msg.data };
        }
      }
      parser.feed(decoder.decode());
      while (queue.length > 0) {
        const msg = queue.shift()!;
        yield { event: msg.event, data: msg.data };
      }
    } catch (err) {
      if (isAbort(err, signal)) throw err;
      const code = (err as { code?: string })?.code;
      if (code === 'UND_ERR_BODY_TIMEOUT') throw networkError(err, this.url, this.timeouts);
      throw new ProxyError('upstream', `The response API connection broke mid-answer (${code ?? (err as Error)?.message ?? 'network error'})`, { cause: err });
    } finally {
      // A consumer that stops early (client disconnect) must free the upstream request.
      if (!body.destroyed) body.destroy();
    }
  }

  async close(): Promise<void> {
    // Runs after the server's grace period: whatever is still open is abandoned.
    await this.agent.destroy().catch(() => undefined);
  }
}
