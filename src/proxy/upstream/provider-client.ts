// The proxy's one way to the provider API in direct mode: a keep-alive undici Agent per proxy instance (closed with
// the proxy), the CLI credential it injects, and the rule for a refused OAuth token: refresh once and send the
// request once more. That retry is safe because the request body is a Buffer that was never streamed to the
// client, and it happens before any byte of the answer is passed on.

import { Agent, type Dispatcher } from 'undici';
import { CliCredentials } from '../auth/cli-credentials.js';
import { ProxyError } from '../errors.js';
import type { Services } from '../services.js';
import { upstreamHeaders, type ClientAuth } from './client-auth.js';
import { fromTransportError, type UpstreamTimeouts } from './upstream-error.js';
import { WholeOrStreamHandler, type WholeOrStream } from './whole-or-stream.js';

export interface ProviderRequest {
  method: 'GET' | 'POST';
  /** Path under the API base, with its query string, e.g. /v1/messages?beta=true. */
  path: string;
  /** Forwardable client headers (client-auth.ts forwardableHeaders) or the backend's own. */
  headers: Record<string, string>;
  body?: Buffer | string;
  auth: ClientAuth;
  signal?: AbortSignal;
  /** Overrides the first-byte deadline (the model list is asked with a short one). */
  firstByteTimeoutMs?: number;
}

export interface ProviderAnswer {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export class ProviderClient {
  readonly agent: Agent;
  readonly credentials: CliCredentials;
  readonly timeouts: UpstreamTimeouts;
  private readonly base: URL;

  constructor(private readonly services: Services) {
    const { config, profile, logger } = services;
    this.timeouts = config;
    this.base = new URL(config.apiBaseUrl);
    this.agent = new Agent({
      connect: { timeout: config.upstreamConnectTimeoutMs },
      keepAliveTimeout: 30_000,
      headersTimeout: config.upstreamFirstByteTimeoutMs,
      bodyTimeout: config.upstreamIdleTimeoutMs,
    });
    this.credentials = new CliCredentials({
      path: config.credentialsPath,
      tokenUrl: config.oauthTokenUrl,
      profile,
      dispatcher: this.agent,
      timeoutMs: Math.min(config.upstreamFirstByteTimeoutMs, 30_000),
      logger,
      now: services.deps.now,
    });
  }

  /** The URL path for `path` under the configured base (which may carry a path prefix). */
  pathFor(path: string): string {
    return this.base.pathname.replace(/\/+$/, '') + path;
  }

  /** Sends the request with the credential the client's auth calls for; one refresh-and-retry on a refused OAuth token. */
  async send(req: ProviderRequest): Promise<ProviderAnswer> {
    if (req.auth.kind !== 'cli-oauth') return this.dispatch(req);
    const answer = await this.credentials.send(
      (credential) => this.dispatch(req, credential.accessToken),
      (a) => a.statusCode === 401,
      (a) => a.body.dump(),
    );
    if (answer.statusCode !== 401) return answer;
    await answer.body.dump().catch(() => undefined);
    throw new ProxyError('authentication', `The provider refused the CLI's OAuth login even after a refresh. ${this.services.profile.cli.loginHint}.`);
  }

  /**
   * Sends like send(), but reads the answer through one dispatch handler (upstream/whole-or-stream.ts): an answer
   * that is not an event stream and ends within `wholeLimit` bytes comes back whole, anything else as a stream of
   * it. For the routes that pass an answer on (forward.ts) or need all of it (direct-backend.ts).
   */
  async exchange(req: ProviderRequest, wholeLimit: number): Promise<WholeOrStream> {
    const discard = async (a: WholeOrStream) => void a.body?.destroy();
    if (req.auth.kind !== 'cli-oauth') return this.exchangeOnce(req, wholeLimit);
    const answer = await this.credentials.send((credential) => this.exchangeOnce(req, wholeLimit, credential.accessToken), (a) => a.statusCode === 401, discard);
    if (answer.statusCode !== 401) return answer;
    await discard(answer);
    throw new ProxyError('authentication', `The provider refused the CLI's OAuth login even after a refresh. ${this.services.profile.cli.loginHint}.`);
  }

  private exchangeOnce(req: ProviderRequest, wholeLimit: number, oauthToken?: string): Promise<WholeOrStream> {
    const headers = upstreamHeaders(req.headers, req.auth, this.services.profile, oauthToken);
    return new Promise<WholeOrStream>((resolve, reject) => {
      const handler = new WholeOrStreamHandler(
        wholeLimit,
        { resolve, reject: (err) => reject(fromTransportError(err, this.timeouts)) },
        req.signal,
        // The subscription's quota windows ride on every answer (docs/usage.md), as in dispatch() below.
        (answerHeaders) => this.services.usage.upstreamHeaders('direct', answerHeaders),
      );
      this.agent.dispatch(
        {
          origin: this.base.origin,
          path: this.pathFor(req.path),
          method: req.method,
          headers,
          body: req.body,
          headersTimeout: req.firstByteTimeoutMs ?? this.timeouts.upstreamFirstByteTimeoutMs,
          bodyTimeout: this.timeouts.upstreamIdleTimeoutMs,
        },
        handler,
      );
    });
  }

  private async dispatch(req: ProviderRequest, oauthToken?: string): Promise<ProviderAnswer> {
    const headers = upstreamHeaders(req.headers, req.auth, this.services.profile, oauthToken);
    try {
      const res = await this.agent.request({
        origin: this.base.origin,
        path: this.pathFor(req.path),
        method: req.method,
        headers,
        body: req.body,
        signal: req.signal,
        headersTimeout: req.firstByteTimeoutMs ?? this.timeouts.upstreamFirstByteTimeoutMs,
        bodyTimeout: this.timeouts.upstreamIdleTimeoutMs,
      });
      // The subscription's quota windows ride on every answer (docs/usage.md): read here, for every route that
      // reaches the provider, never changed.
      this.services.usage.upstreamHeaders('direct', res.headers);
      return { statusCode: res.statusCode, headers: res.headers, body: res.body };
    } catch (err) {
      throw fromTransportError(err, this.timeouts);
    }
  }

  async close(): Promise<void> {
    const closed = this.agent.close();
    const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 1000).unref());
    if ((await Promise.race([closed, timer])) === 'timeout') await this.agent.destroy();
  }
}
