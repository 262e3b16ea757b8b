// createProxy composes the middleware and routes of one proxy instance (DESIGN.md). It has no module state:
// tests start several on OS-chosen ports in one process (the one process-wide list is redact.ts's literal
// secrets, on purpose: see there). Order of the middleware matters:
//   request id -> request log/metrics (+ abort signal) -> error renderer -> host guard -> cross-site guard -> CORS
//   -> access key -> rate limit -> routes -> 404/405
// so that every error, even a refused Host, is logged, counted, and rendered in the family's wire shape. The two
// guards refuse a foreign Host and a web page of another origin before any work: before the access key, the rate
// limit every local client shares, the body, a provider call or a CLI start; what they refuse has no ledger row
// (docs/security.md).

import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import type { Config } from './config.js';
import { isLoopbackHost } from '../shared/endpoints.js';
import type { ModeName } from '../shared/modes.js';
import { cliChildEnv } from './modes/tool/child-env.js';
import { CliProbe } from './health/cli-probe.js';
import { accessKey } from './http/access-key.js';
import { newOwnerKey } from './auth/owner-key.js';
import { offersFileTools } from './modes/tool/translate/tool-rules-to-cli-permissions.js';
import { onClientError } from './http/client-error.js';
import { attachConnectionCaps } from './http/connection-caps.js';
import { cors } from './http/cors.js';
import { crossSiteGuard } from './http/cross-site-guard.js';
import { errorRenderer } from './http/errors.js';
import { familyErrorShapes } from './formats/error-shapes.js';
import { fallthrough } from './http/fallthrough.js';
import { hostGuard } from './http/host-guard.js';
import { rateLimit } from './http/rate-limit.js';
import { RefusalLog } from './http/refusal-log.js';
import { requestId } from './http/request-id.js';
import type { RequestAbort } from './http/request-abort.js';
import { requestLog } from './http/request-log.js';
import type { ProxyState } from './http/state.js';
import { createLogger, type Logger } from './logger.js';
import { ProxyMetrics } from './metrics.js';
import { createProfile, type Profile } from './profile.js';
import { rememberSecret } from './redact.js';
import { buildComponents } from './components.js';
import type { LiveModelCatalog } from './models/live-catalog.js';
import type { SessionRegistry } from './respapi/session-registry.js';
import type { CliPoolSnapshot } from './modes/tool/engine/warm-pool.js';
import type { LiveConversationsSnapshot } from './modes/tool/engine/processes.js';
import { createOllamaApp, type OllamaListenerStatus } from './routes/ollama.js';
import type { ProxyMiddleware } from './http/types.js';
import { registerDirect } from './modes/direct/routes.js';
import { registerHealth } from './routes/health.js';
import { registerModels } from './routes/models.js';
import { registerRoot } from './routes/root.js';
import { registerRespapi } from './respapi/routes.js';
import { registerTool } from './modes/tool/routes.js';
import { registerWireRoutes } from './routes/wire-routes.js';
import { registerStoredResponses } from './routes/stored-responses.js';
import { responsesSockets } from './responses-socket/upgrade.js';
import { registerUsage, type UsageQueries } from './routes/usage.js';
import { defaultDeps, serviceVersion, type ProxyDeps, type Services } from './services.js';
import { noopUsageSink } from './usage/index.js';
import type { UsageLedger } from './usage/ledger.js';
import type { UsageSink } from './usage/types.js';
import { registerUsageMetrics } from './usage/usage-metrics.js';

interface CreateProxyOptions {
  config: Config;
  profile?: Profile;
  logger?: Logger;
  deps?: Partial<ProxyDeps>;
  /** The usage ledger (docs/usage.md), opened and closed by the caller (it may outlive this proxy); when it can
   * also be read (a UsageLedger), /usage/* and the usage metrics are served from it. Absent: nothing recorded. */
  usage?: UsageSink | UsageLedger;
  /**
   * The owner's key (auth/owner-key.ts: the file in the data directory that the headless proxy and the app load);
   * PROXY_ACCESS_KEY wins when set. Absent: a fresh key only this instance knows, so owner data stays closed.
   */
  ownerKey?: string;
}

export interface ProxyServer {
  app: Koa<ProxyState>;
  /** The Ollama listener's app, when OLLAMA_PORT is set (docs/ollama.md). */
  ollamaApp: Koa<ProxyState> | undefined;
  services: Services;
  /** Binds the port; rejects with PortInUseError when it is taken. Waits for the first CLI probe (bounded). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Stops accepting, lets in-flight requests finish up to the grace period, then ends them. */
  close(graceMs?: number): Promise<void>;
  readonly server: Server | undefined;
  /** The port actually bound (differs from config.port when that is 0); undefined when not listening. */
  readonly port: number | undefined;
  /** The Ollama listener's state (docs/ollama.md): off, listening, or its port taken. */
  ollama(): OllamaListenerStatus;
  /** The response-API sessions of this instance, for the desktop window. */
  readonly respapiSessions: SessionRegistry;
  /** The warm CLI pool's counts and memory, for the desktop window. */
  cliPool(): CliPoolSnapshot;
  /** The live conversations' counts and memory, for the desktop window. */
  cliLive(): LiveConversationsSnapshot;
  /** The model catalog every list shows (models/live-catalog.ts), for the desktop window. */
  readonly catalog: LiveModelCatalog;
  /** The key that opens the owner's data (and everything, with PROXY_ACCESS_KEY or REQUIRE_ACCESS_KEY). */
  readonly ownerKey: string;
}

export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly host: string,
  ) {
    super(
      `Port ${port} already in use on ${host}. Choose another port with --port or PORT (or in the app's settings).`,
    );
    this.name = 'PortInUseError';
  }
}

/** A request head must arrive within this; clients send it at once (docs/security.md, "Another local user"). */
const headersTimeoutMs = 15_000;
/** An idle kept-alive connection is closed after this; client pools reconnect on their own. */
const keepAliveTimeoutMs = 30_000;

export function createProxy(options: CreateProxyOptions): ProxyServer {
  const config = options.config;
  const profile = options.profile ?? createProfile();
  const logger = options.logger ?? createLogger(config.logLevel);
  const deps = defaultDeps(options.deps);
  const metrics = new ProxyMetrics(deps.now);
  // The access key is redacted as a literal from every log line, error and captured body (redact.ts).
  const ownerKey = config.accessKey ?? options.ownerKey ?? newOwnerKey();
  rememberSecret(ownerKey);
  // The probe runs the CLI with the children's environment: the same login, and never the proxy's own secrets.
  const probeEnv = cliChildEnv(deps.childEnv ?? process.env, deps.envPath);
  const probe = new CliProbe({
    profile,
    cliPath: config.cliPath,
    credentialsPath: config.credentialsPath,
    run: deps.run,
    now: deps.now,
    envPath: deps.envPath,
    env: probeEnv,
  });
  const closeHooks: Array<() => Promise<void> | void> = [];
  const inFlight = new Set<RequestAbort>();
  const services: Services = {
    config,
    profile,
    logger,
    metrics,
    probe,
    deps,
    version: serviceVersion(),
    startedAt: deps.now(),
    modeOn: (mode: ModeName) => config.modes.includes(mode),
    usage: options.usage ?? noopUsageSink,
  };
  const components = buildComponents(services);
  closeHooks.push(() => components.close());
  let boundPort: number | undefined;
  const ledger = 'requests' in services.usage ? (services.usage as UsageLedger) : undefined;

  const app = new Koa<ProxyState>({ proxy: false });
  app.silent = true; // errors are rendered and logged by errorRenderer; Koa's default printer would log stacks
  const router = new Router<ProxyState>();
  // The Ollama listener's state beside the components' figures (docs/ollama.md): off, listening, or its port taken.
  registerHealth(router, services, {
    port: () => boundPort,
    extras: (view) => ({ ...components.health(view), ollama_api: { ...ollamaStatus, mode: config.ollamaMode } }),
  });
  registerRoot(router, services);
  registerModels(router, services, components.catalog);
  registerTool(router, services, components);
  registerDirect(router, services, { provider: components.provider, catalog: components.catalog });
  registerWireRoutes(router, services, {
    cli: components.cli,
    direct: components.direct,
    catalog: components.catalog,
    chains: components.chains,
  });
  registerStoredResponses(router, services, components.chains);
  // The Responses WebSocket (responses-socket/): its handshake routes now, its upgrade handler once listening.
  const responseSockets = responsesSockets(router, services, components.chains);
  registerRespapi(router, services, components.respapi);
  if (ledger) {
    registerUsage(router, services, ledger satisfies UsageQueries);
    const detach = registerUsageMetrics(metrics.registry, ledger);
    // The caller closes the ledger; what this proxy's requests recorded is written now.
    closeHooks.push(() => {
      detach();
      ledger.flush();
    });
  }

  // One minute of quiet per refused source, shared by both guards (docs/security.md "Refusals in the log").
  const refusals = new RefusalLog(deps.now);
  // The chain every listener runs before its routes; the Ollama listener runs the same function objects, so the
  // two ports share one rate limit per client and one refusal log (routes/ollama.ts).
  const chain: ProxyMiddleware[] = [
    requestId(),
    requestLog(logger, metrics, inFlight, deps.now, services.usage),
    errorRenderer(logger, familyErrorShapes),
    hostGuard(config.allowedHosts, metrics, { checkNames: isLoopbackHost(config.host), refusals }),
    crossSiteGuard(config.corsOrigins, metrics, refusals),
    cors(config.corsOrigins),
    accessKey(ownerKey, {
      everything: config.accessKey !== undefined || config.requireAccessKey,
      fileToolsNeedKey:
        config.modes.includes('tool') && offersFileTools(profile, config.cliAllowedTools, config.cliUnconfinedShell),
    }),
    rateLimit(config.rateLimitPerMinute, config.rateLimitBurst, deps.now, () => metrics.rateLimited(deps.now())),
  ];
  for (const middleware of chain) app.use(middleware);
  app.use(fallthrough(router));
  app.use(router.routes());
  const ollamaApp = config.ollamaPort === undefined ? undefined : createOllamaApp(services, components, chain);
  let ollamaServer: Server | undefined;
  let ollamaStatus: OllamaListenerStatus = { state: 'off' };

  let server: Server | undefined;
  const sockets = new Set<Socket>();

  async function listen() {
    const firstProbe = probe.refresh().catch((err: Error) => logger.warn({ err: err.message }, 'CLI probe failed'));
    // requestTimeout covers receiving the request only (head and body), never the answer, so long streams are not
    // cut; it closes a connection that drips a body to a path that never reads it (docs/security.md). A connection
    // that has not sent a whole request head within headersTimeout, or sits idle between requests for
    // keepAliveTimeout, is closed, so held sockets are reclaimed; the connection caps bound how many there are.
    const s = makeServer(app);
    admitToolSockets(s);
    responseSockets.attach(s, app.callback());
    await bind(s, config.port, { flag: '--port', env: 'PORT' });
    server = s;
    const addr = s.address() as AddressInfo;
    boundPort = addr.port;
    if (ollamaApp) await listenOllama(ollamaApp, config.ollamaPort ?? 0);
    probe.start(config.healthRefreshMs);
    components.startCatalog();
    await Promise.race([firstProbe, new Promise((r) => setTimeout(r, 3000).unref())]);
    return { host: addr.address, port: addr.port, url: urlOf(addr) };
  }

  function urlOf(addr: AddressInfo): string {
    const shownHost = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
    return `http://${shownHost}:${addr.port}`;
  }

  /**
   * The per-conversation MCP servers of tool mode count in MAX_CONNECTIONS of the main listener too (docs/tool-mode.md
   * "The client's own tools"): one of their sockets is refused when the cap is reached, and each open one lowers this
   * server's room.
   */
  function admitToolSockets(s: Server): void {
    let toolSockets = 0;
    components.cli.admitSockets(() => {
      if (sockets.size + toolSockets >= config.maxConnections) return false;
      toolSockets++;
      s.maxConnections = config.maxConnections - toolSockets;
      return () => {
        toolSockets--;
        s.maxConnections = config.maxConnections - toolSockets;
      };
    });
  }

  /** An HTTP server for one listener's app, with the deadlines, connection caps and refusals every listener has. */
  function makeServer(listenerApp: Koa<ProxyState>): Server {
    const receiveMs = config.bodyTimeoutMs + 1_000; // a second after the body deadline, so routes answer 408 first
    // requireHostHeader off: node's own 400 for an HTTP/1.1 request without Host would have no nosniff and no body;
    // the host guard answers it instead, in the family's shape (docs/http.md "Requests node refuses").
    const s = createServer(
      {
        requestTimeout: receiveMs,
        headersTimeout: Math.min(headersTimeoutMs, receiveMs),
        connectionsCheckingInterval: 1_000,
        requireHostHeader: false,
      },
      listenerApp.callback(),
    );
    s.keepAliveTimeout = keepAliveTimeoutMs;
    attachConnectionCaps(s, {
      total: config.maxConnections,
      perClient: config.maxConnectionsPerClient,
      warn: (fields, message) => logger.warn(fields, message),
      refused: (reason) => metrics.refusedConnections.labels(reason).inc(),
      now: deps.now,
    });
    // An unknown Expect value would otherwise get node's bare 417; through Koa it gets a family-shaped answer.
    s.on('checkExpectation', listenerApp.callback());
    // What node's parser refuses (a malformed request, a head over the size limit, a receive deadline) is answered
    // with node's status but with nosniff and a body (http/client-error.ts).
    s.on('clientError', onClientError({ log: (level, fields, message) => logger[level](fields, message), refusals }));
    s.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
    });
    return s;
  }

  async function bind(s: Server, port: number, names: { flag: string; env: string }): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      s.once('error', (err: NodeJS.ErrnoException) => {
        if (err.code === 'EADDRINUSE') reject(new PortInUseError(port, config.host));
        else if (err.code === 'EACCES')
          reject(
            new Error(
              `Not allowed to listen on ${config.host}:${port} (${err.code}); choose a port above 1024 with ${names.flag} or ${names.env}`,
            ),
          );
        else if (err.code === 'EADDRNOTAVAIL')
          reject(new Error(`Address ${config.host} is not available on this machine; choose another --host`));
        else reject(err);
      });
      s.listen(port, config.host, () => resolve());
    });
    s.on('error', (err) => logger.error({ err }, 'server error'));
  }

  /**
   * The Ollama port is an extra: when it cannot be bound (a real Ollama already has 11434) the proxy says so in
   * one line and runs on without it; the state is shown by health, the start-up summary and the window.
   */
  async function listenOllama(ollama: Koa<ProxyState>, port: number): Promise<void> {
    const s = makeServer(ollama);
    try {
      await bind(s, port, { flag: '--ollama-port', env: 'OLLAMA_PORT' });
    } catch (err) {
      const inUse = err instanceof PortInUseError;
      const message = inUse
        ? `Ollama port ${port} is already in use on ${config.host} (is Ollama itself running?); the Ollama API is off, the proxy runs on. Choose another port with --ollama-port or OLLAMA_PORT.`
        : `The Ollama API could not listen on ${config.host}:${port}: ${(err as Error).message}`;
      ollamaStatus = { state: inUse ? 'port-in-use' : 'failed', port, message };
      logger.warn({ port, host: config.host }, message);
      return;
    }
    ollamaServer = s;
    const addr = s.address() as AddressInfo;
    ollamaStatus = { state: 'listening', port: addr.port, url: urlOf(addr) };
  }

  async function close(graceMs = config.shutdownGraceMs) {
    probe.stop();
    responseSockets.shutdown();
    const s = server;
    server = undefined;
    const o = ollamaServer;
    ollamaServer = undefined;
    if (ollamaApp) ollamaStatus = { state: 'off' };
    const ollamaClosed = o ? new Promise<void>((resolve) => o.close(() => resolve())) : Promise.resolve();
    o?.closeIdleConnections();
    if (s) {
      const closed = new Promise<void>((resolve) => s.close(() => resolve()));
      s.closeIdleConnections();
      const deadline = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), graceMs).unref());
      const waitInFlight = (async () => {
        while (inFlight.size > 0) await new Promise((r) => setTimeout(r, 25));
      })();
      if ((await Promise.race([waitInFlight, deadline])) === 'timeout') {
        logger.warn({ inFlight: inFlight.size }, 'shutdown grace period over; ending in-flight requests');
        for (const abort of inFlight) abort.abort(new Error('server shutting down'));
        await new Promise((r) => setTimeout(r, 50));
      }
      for (const socket of sockets) socket.destroy();
      await closed;
    }
    for (const socket of sockets) socket.destroy();
    await ollamaClosed;
    for (const hook of closeHooks.splice(0)) {
      try {
        await hook();
      } catch (err) {
        logger.warn({ err }, 'close hook failed');
      }
    }
  }

  return {
    app,
    ollamaApp,
    services,
    listen,
    close,
    get server() {
      return server;
    },
    get port() {
      return server ? boundPort : undefined;
    },
    ollama: () => ollamaStatus,
    respapiSessions: components.respapi.sessions,
    ownerKey,
    cliPool: () => components.cli.poolSnapshot(),
    cliLive: () => components.cli.liveSnapshot(),
    catalog: components.catalog,
  };
}
