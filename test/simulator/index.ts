// A simulator of the hosted provider for tests and the benchmark: a real node:http server on 127.0.0.1 with an
// OS-chosen port, deliberately independent of Koa and of the code under test. It serves
//   POST /v1/messages[?beta=true]    native Messages API, JSON or SSE (messages.ts, reply-plan.ts)
//   POST /v1/messages/count_tokens   the input token count of a native request
//   GET  /v1/models                  the provider's model list
//   POST /v1/oauth/token             the CLI's credential refresh (oauth.ts)
//   POST <respapiBasePath>/responses the response API, SSE only (respapi.ts); default base /respapi
//   POST /respapi-oauth/token        the response API's OAuth2 refresh
// and records every request it received. Tests tune it through `knobs` (types.ts), a plain mutable object.

import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { makeRespapiAccessToken, type RespapiTokenOptions } from './jwt.js';
import { readBody, sendJson } from './http.js';
import { handleCountTokens, handleMessages, handleModels } from './messages.js';
import { handleCliToken, handleRespapiToken } from './oauth.js';
import { PromptCache } from './prompt-cache.js';
import { handleResponses } from './respapi.js';
import {
  defaultKnobs,
  tokenSetAdd,
  tokenSetSize,
  type RecordedRequest,
  type RouteContext,
  type SimulatorKnobs,
  type SimulatorState,
} from './types.js';

export type { FailWith, OverageState, RecordedRequest, SimulatorKnobs, StreamFault, TokenSet } from './types.js';
export { billingRefusalText, overageHeaders } from './billing.js';
export { makeJwt, decodeJwt, makeRespapiAccessToken, makeRespapiIdToken, respapiAuthClaim } from './jwt.js';
export { writeCliCredentials, writeRespapiCredentials } from './credentials.js';
export type { CliCredentialOptions, RespapiCredentialOptions } from './credentials.js';
export { providerModels, simulatorOnlyModel } from './messages.js';
export { countWords, splitText } from './reply-plan.js';
export { minCacheableTokens, promptTokens, tokenCount, type CacheUsage, type TokenRule } from './prompt-cache.js';
export { readSse, parseSse, type SseEvent } from './sse-client.js';

export interface SimulatorOptions {
  /** Knob values to start with (merged over the defaults, and restored by reset()). */
  knobs?: Partial<SimulatorKnobs>;
  /** Base path of the response API; default /respapi. */
  respapiBasePath?: string;
  /** The clock of the prompt cache's lifetimes (ms); default Date.now. */
  now?: () => number;
  /** Called with every /v1/messages request once it is billed (its `billed` set), e.g. to keep a bill apart from `received`. */
  onBilled?: (record: RecordedRequest) => void;
}

export interface Simulator {
  /** http://127.0.0.1:PORT, no trailing slash: the native API base. */
  readonly url: string;
  readonly port: number;
  /** url + respapiBasePath: what RESPAPI_BASE_URL should be. */
  readonly respapiBaseUrl: string;
  /** The CLI credential refresh endpoint (ASSISTANT_OAUTH_TOKEN_URL). */
  readonly cliTokenUrl: string;
  /** The response API's OAuth2 endpoint (RESPAPI_OAUTH_TOKEN_URL). */
  readonly respapiTokenUrl: string;
  readonly received: RecordedRequest[];
  readonly knobs: SimulatorKnobs;
  readonly tokenRefreshes: number;
  readonly respapiTokenRefreshes: number;
  /** Received requests whose path is `path` (or starts with it when it ends with '*'). */
  requests(path?: string): RecordedRequest[];
  /** Requests whose answer has not closed yet: still streaming, stalled or waiting (0 = no open upstream request). */
  openRequests(): number;
  /** Clears the records, counters, sequences and the prompt cache, and restores the knobs (in place: references stay valid). */
  reset(): void;
  /** Closes the server and every connection, including open and stalled streams. */
  close(): Promise<void>;
  /**
   * A fresh CLI access token (sk-ant-oat01-sim-minted-N), added to knobs.acceptTokens. Note that this turns the
   * allow-list on when it was empty: from then on only listed tokens are accepted.
   */
  mintCliAccessToken(): string;
  /** A fresh response-API access JWT; added to knobs.respapiAcceptTokens when that allow-list is in use. */
  mintRespapiAccessToken(opts?: RespapiTokenOptions): string;
}

function lowerHeaders(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v !== undefined) out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : v;
  }
  return out;
}

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return undefined;
  try {
    return JSON.parse(body.toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

export async function startSimulator(opts: SimulatorOptions = {}): Promise<Simulator> {
  const respapiBase = (opts.respapiBasePath ?? '/respapi').replace(/\/+$/, '');
  const initialKnobs = (): SimulatorKnobs => ({ ...defaultKnobs(), ...structuredClone(opts.knobs ?? {}) });
  const sequences = new Map<string, number>();
  const state: SimulatorState = {
    knobs: initialKnobs(),
    tokenRefreshes: 0,
    respapiTokenRefreshes: 0,
    next(name) {
      const n = (sequences.get(name) ?? 0) + 1;
      sequences.set(name, n);
      return n;
    },
    serverCut: new WeakSet(),
    promptCache: new PromptCache(opts.now ?? Date.now),
    onBilled: opts.onBilled,
  };
  const received: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let closing = false;
  let open = 0;

  const routes: Record<string, (ctx: RouteContext) => Promise<void>> = {
    'POST /v1/messages': handleMessages,
    'POST /v1/messages/count_tokens': handleCountTokens,
    'GET /v1/models': handleModels,
    'POST /v1/oauth/token': handleCliToken,
    [`POST ${respapiBase}/responses`]: handleResponses,
    'POST /respapi-oauth/token': handleRespapiToken,
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      path: q >= 0 ? target.slice(0, q) : target,
      query: q >= 0 ? target.slice(q + 1) : '',
      url: target,
      headers: lowerHeaders(req),
      body: Buffer.alloc(0),
      json: undefined,
      timestamp: Date.now(),
      aborted: false,
    };
    received.push(record);
    open++;
    res.on('finish', () => {
      record.answeredStatus = res.statusCode;
    });
    res.on('close', () => {
      open--;
      if (!res.writableFinished && !closing && !state.serverCut.has(res)) record.aborted = true;
    });
    record.body = await readBody(req);
    record.json = parseJson(record.body);
    const drop = state.knobs.dropBeforeHeaders;
    if (
      drop === true ||
      (typeof drop === 'string' &&
        (drop.endsWith('*') ? record.path.startsWith(drop.slice(0, -1)) : record.path === drop))
    ) {
      state.serverCut.add(res);
      res.socket?.destroy();
      return;
    }
    const route = routes[`${record.method} ${record.path}`];
    if (!route) {
      sendJson(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: `No route ${record.method} ${record.path}` },
      });
      return;
    }
    const isForm = (record.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded');
    if (record.body.length > 0 && record.json === undefined && !isForm) {
      sendJson(res, 400, {
        type: 'error',
        error: { type: 'invalid_request_error', message: 'Request body is not valid JSON' },
      });
      return;
    }
    await route({ state, record, res });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { type: 'error', error: { type: 'api_error', message: String(err) } });
      else res.destroy();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;

  return {
    url,
    port,
    respapiBaseUrl: url + respapiBase,
    cliTokenUrl: `${url}/v1/oauth/token`,
    respapiTokenUrl: `${url}/respapi-oauth/token`,
    received,
    get knobs() {
      return state.knobs;
    },
    get tokenRefreshes() {
      return state.tokenRefreshes;
    },
    get respapiTokenRefreshes() {
      return state.respapiTokenRefreshes;
    },
    openRequests: () => open,
    requests(path) {
      if (path === undefined) return [...received];
      if (path.endsWith('*')) return received.filter((r) => r.path.startsWith(path.slice(0, -1)));
      return received.filter((r) => r.path === path);
    },
    reset() {
      received.length = 0;
      state.tokenRefreshes = 0;
      state.respapiTokenRefreshes = 0;
      sequences.clear();
      state.promptCache.clear();
      const knobs = state.knobs as unknown as Record<string, unknown>;
      for (const key of Object.keys(knobs)) delete knobs[key];
      Object.assign(knobs, initialKnobs());
    },
    async close() {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      for (const socket of sockets) socket.destroy();
      await closed;
    },
    mintCliAccessToken() {
      const token = `sk-ant-oat01-sim-minted-${state.next('minted')}`;
      tokenSetAdd(state.knobs.acceptTokens, token);
      return token;
    },
    mintRespapiAccessToken(tokenOpts = {}) {
      const token = makeRespapiAccessToken({ accountId: state.knobs.respapiAccountId, ...tokenOpts });
      if (tokenSetSize(state.knobs.respapiAcceptTokens) > 0) tokenSetAdd(state.knobs.respapiAcceptTokens, token);
      return token;
    },
  };
}
