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
  send(req: ProviderRequest): Promise<ProviderAnswer> {
    return this.withCredential(
      req,
      (token) => this.dispatch(req, token),
      (a) => a.body.dump(),
    );
  }

  /**
   * Sends like send(), but reads the answer through one dispatch handler (upstream/whole-or-stream.ts): an answer
   * that is not an event stream and ends within `wholeLimit` bytes comes back whole, anything else as a stream of
   * it. For the routes that pass an answer on (forward.ts) or need all of it (direct-backend.ts).
   */
  exchange(req: ProviderRequest, wholeLimit: number): Promise<WholeOrStream> {
    return this.withCredential(
      req,
      (token) => this.exchangeOnce(req, wholeLimit, token),
      async (a) => void a.body?.destroy(),
    );
  }

  /**
   * `once` with the CLI's OAuth token when the client's auth calls for it, refreshed and sent once more when the
   * provider refuses it; `discard` lets go of an answer that is not passed on.
   */
  private async withCredential<T extends { statusCode: number }>(
    req: ProviderRequest,
    once: (oauthToken?: string) => Promise<T>,
    discard: (answer: T) => Promise<unknown>,
  ): Promise<T> {
    if (req.auth.kind !== 'cli-oauth') return once();
    const answer = await this.credentials.send(
      (credential) => once(credential.accessToken),
      (a) => a.statusCode === 401,
      discard,
    );
    if (answer.statusCode !== 401) return answer;
    await discard(answer).catch(() => undefined);
    throw new ProxyError(
      'authentication',
      `The provider refused the CLI's OAuth login even after a refresh. ${this.services.profile.cli.loginHint}.`,
    );
  }

  /** What undici is given for `req`, whichever way its answer is read. */
  private options(req: ProviderRequest, oauthToken: string | undefined): Dispatcher.DispatchOptions {
    return {
      origin: this.base.origin,
      path: this.pathFor(req.path),
      method: req.method,
      headers: upstreamHeaders(req.headers, req.auth, this.services.profile, oauthToken),
      body: req.body,
      headersTimeout: req.firstByteTimeoutMs ?? this.timeouts.upstreamFirstByteTimeoutMs,
      bodyTimeout: this.timeouts.upstreamIdleTimeoutMs,
    };
  }

  /** The subscription's quota windows ride on every answer (docs/usage.md): read on every route, never changed. */
  private readonly observeHeaders = (headers: Record<string, string | string[] | undefined>): void =>
    this.services.usage.upstreamHeaders('direct', headers);

  private exchangeOnce(req: ProviderRequest, wholeLimit: number, oauthToken?: string): Promise<WholeOrStream> {
    return new Promise<WholeOrStream>((resolve, reject) => {
      const handler = new WholeOrStreamHandler(
        wholeLimit,
        { resolve, reject: (err) => reject(fromTransportError(err, this.timeouts)) },
        req.signal,
        this.observeHeaders,
      );
      this.agent.dispatch(this.options(req, oauthToken), handler);
    });
  }

  private async dispatch(req: ProviderRequest, oauthToken?: string): Promise<ProviderAnswer> {
    try {
      const res = await this.agent.request({ ...this.options(req, oauthToken), signal: req.signal });
      this.observeHeaders(res.headers);
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
