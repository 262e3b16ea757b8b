// The upstream side of response-API mode: one POST to <RESPAPI_BASE_URL><responsesPath> with undici, always
// streaming (the upstream only streams), carrying the bearer access token, the account and session headers and the
// profile's extra headers. Timeouts come from the upstream* settings: connect, first byte (headers) and idle
// (longest silence between body chunks). The answer's events come from the one SSE reader (sse-reader.ts) as they
// arrive; leaving the iteration early destroys the upstream body (the request is aborted), which is how a client
// disconnect reaches the upstream.

import { Agent, request, type Dispatcher } from 'undici';
import { ProxyError } from '../errors.js';
import type { RefreshingCredential } from '../auth/refreshing-credential.js';
import type { RespapiCredential } from '../auth/respapi-credentials.js';
import type { Profile } from '../profile.js';
import { firstValue } from '../header-value.js';
import { readLimited } from '../upstream/read-limited.js';
import { respapiUpstreamError } from './respapi-errors.js';
import { readSse, type SseMessage } from '../upstream/sse-reader.js';
import { fromTransportError, responseApi, type UpstreamTimeouts } from '../upstream/upstream-error.js';
import type { UsageSink } from '../usage/types.js';

export type UpstreamEvent = SseMessage;

interface RespapiClientOptions {
  baseUrl: string;
  profile: Profile;
  credential: RefreshingCredential<RespapiCredential>;
  timeouts: UpstreamTimeouts;
  /** Receives every answer's headers: the response API reports its quota windows there (docs/usage.md). */
  usage?: Pick<UsageSink, 'upstreamHeaders'>;
}

export class RespapiClient {
  readonly url: string;
  private readonly agent: Agent;

  constructor(private readonly opts: RespapiClientOptions) {
    this.url = opts.baseUrl.replace(/\/+$/, '') + opts.profile.respapi.responsesPath;
    this.agent = new Agent({
      connect: { timeout: opts.timeouts.upstreamConnectTimeoutMs },
      headersTimeout: opts.timeouts.upstreamFirstByteTimeoutMs,
      bodyTimeout: opts.timeouts.upstreamIdleTimeoutMs,
    });
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

  /** One request; a failure to get an answer is a ProxyError, unless the caller's signal ended it (then as thrown). */
  private async post(
    payload: string,
    sessionId: string,
    cred: RespapiCredential,
    signal: AbortSignal,
  ): Promise<Dispatcher.ResponseData> {
    try {
      const res = await request(this.url, {
        method: 'POST',
        headers: this.headers(cred, sessionId),
        body: payload,
        dispatcher: this.agent,
        signal,
      });
      this.opts.usage?.upstreamHeaders('respapi', res.headers);
      return res;
    } catch (err) {
      if (signal.aborted) throw err;
      throw fromTransportError(err, this.opts.timeouts, responseApi);
    }
  }

  /**
   * Sends the request and returns the events once the upstream answered 2xx with an event stream. Any other answer
   * is thrown as a ProxyError; a refused login (401) is refreshed once and the request sent once more
   * (RefreshingCredential.send: the file may hold a token revoked early).
   */
  async open(
    body: Record<string, unknown>,
    sessionId: string,
    signal: AbortSignal,
  ): Promise<AsyncIterable<UpstreamEvent>> {
    const payload = JSON.stringify(body);
    const res = await this.opts.credential.send(
      (cred) => this.post(payload, sessionId, cred, signal),
      (r) => r.statusCode === 401,
      (r) => r.body.dump(),
    );
    const status = res.statusCode;
    if (status >= 200 && status < 300) {
      const type = firstValue(res.headers['content-type']) ?? '';
      if (!type.includes('text/event-stream')) {
        const text = await readLimited(res.body).catch(() => '');
        throw new ProxyError(
          'upstream',
          `The response API answered ${type || 'no content type'} instead of an event stream (${text.slice(0, 200)})`,
        );
      }
      return this.iterate(res.body, signal);
    }
    let text = '';
    try {
      text = await readLimited(res.body);
    } catch (err) {
      if (signal.aborted) throw err;
    }
    throw respapiUpstreamError(status, text, firstValue(res.headers['retry-after']), this.opts.profile);
  }

  private async *iterate(body: Dispatcher.ResponseData['body'], signal: AbortSignal): AsyncGenerator<UpstreamEvent> {
    try {
      yield* readSse(body);
    } catch (err) {
      if (signal.aborted) throw err;
      throw fromTransportError(err, this.opts.timeouts, responseApi);
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
