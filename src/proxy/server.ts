// createProxy: the composition root of one proxy instance (docs/architecture.md). It builds, in this order, what the
// routes share (services.ts), the long-lived parts (components.ts), the route registrars over them, the middleware
// chain and the two apps (the main one and the Ollama listener's, ollama/app.ts), and hands the apps to the listeners
// (listen/listeners.ts), which own the ports, the connections and the shutdown. It has no module state: tests start
// several on OS-chosen ports in one process (the one process-wide list is redact.ts's literal secrets, on purpose:
// see there). Order of the middleware matters:
//   request id -> request log/metrics (+ abort signal) -> error renderer -> host guard -> cross-site guard -> CORS
//   -> access key -> rate limit -> routes -> 404/405
// so that every error, even a refused Host, is logged, counted, and rendered in the family's wire shape. The two
// guards refuse a foreign Host and a web page of another origin before any work: before the access key, the rate
// limit every local client shares, the body, a provider call or a CLI start; what they refuse has no ledger row
// (docs/security.md).

import type { Server } from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import compose from 'koa-compose';
import type { Config } from './config.js';
import { isLoopbackHost } from '../shared/endpoints.js';
import { accessKey } from './http/access-key.js';
import { newOwnerKey } from './auth/owner-key.js';
import { cors } from './http/cors.js';
import { crossSiteGuard } from './http/cross-site-guard.js';
import { errorRenderer } from './http/errors.js';
import { Exchange } from './http/exchange.js';
import { familyErrorShapes } from './formats/error-shapes.js';
import { fallthrough } from './http/fallthrough.js';
import { hostGuard } from './http/host-guard.js';
import { rateLimit } from './http/rate-limit.js';
import { RefusalLog } from './http/refusal-log.js';
import { requestId } from './http/request-id.js';
import { requestLog } from './http/request-log.js';
import type { ProxyState } from './http/state.js';
import type { ProxyContext, ProxyMiddleware } from './http/types.js';
import { InFlight } from './listen/in-flight.js';
import { Listeners, type OllamaListenerStatus } from './listen/listeners.js';
import { createLogger, type Logger } from './logger.js';
import { createProfile, type Profile } from './profile.js';
import { rememberSecret } from './redact.js';
import { buildComponents, type CliPoolSnapshot, type LiveConversationsSnapshot } from './components.js';
import type { LiveModelCatalog } from './models/live-catalog.js';
import { registerModeRoutes } from './modes/index.js';
import type { SessionRegistry } from './respapi/session-registry.js';
import { registerRespapi } from './respapi/routes.js';
import { createOllamaApp } from './ollama/app.js';
import { registerHealth } from './routes/health.js';
import { registerModels } from './routes/models.js';
import { registerRoot } from './routes/root.js';
import { registerWireRoutes } from './routes/wire-routes.js';
import { registerStoredResponses } from './responses/stored-routes.js';
import { responsesSockets } from './responses/socket/upgrade.js';
import { registerUsage, type UsageQueries } from './routes/usage.js';
import { createServices, type ProxyDeps, type Services } from './services.js';
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
  /** Binds the port; rejects with PortInUseError (listen/bind.ts) when it is taken. Waits for the first CLI probe
   * (bounded). */
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

/** How long listen() waits for the first CLI probe, so the start-up summary can say what it found. */
const firstProbeWaitMs = 3000;

export function createProxy(options: CreateProxyOptions): ProxyServer {
  const config = options.config;
  const logger = options.logger ?? createLogger(config.logLevel);
  const services = createServices({
    config,
    profile: options.profile ?? createProfile(),
    logger,
    deps: options.deps,
    usage: options.usage,
  });
  const { metrics, probe, deps } = services;
  // The access key is redacted as a literal from every log line, error and captured body (redact.ts).
  const ownerKey = config.accessKey ?? options.ownerKey ?? newOwnerKey();
  rememberSecret(ownerKey);
  const components = buildComponents(services);
  const closeHooks: Array<() => Promise<void> | void> = [() => components.close()];
  const ledger = 'requests' in services.usage ? (services.usage as UsageLedger) : undefined;

  const router = new Router<ProxyState>();
  // The Ollama listener's state beside the components' figures (docs/ollama.md): off, listening, or its port taken.
  registerHealth(router, services, {
    port: () => listeners.port,
    extras: (view) => ({
      ...components.health(view),
      ollama_api: { ...listeners.ollama(), mode: config.ollamaMode },
    }),
  });
  registerRoot(router, services);
  registerModels(router, services, components.catalog);
  registerModeRoutes(router, services, { provider: components.provider, catalog: components.catalog });
  registerWireRoutes(router, services, {
    cli: components.cli,
    direct: components.direct,
    catalog: components.catalog,
    chains: components.chains,
  });
  registerStoredResponses(router, services, components.chains);
  // The Responses WebSocket (responses/socket/): its handshake routes now, its upgrade handler once listening.
  const responseSockets = responsesSockets(router, services, components.chains.store);
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

  const inFlight = new InFlight();
  // One minute of quiet per refused source, shared by both guards (docs/security.md "A web page in the user's
  // browser").
  const refusals = new RefusalLog(deps.now);
  // The chain every listener runs before its routes; the Ollama listener runs the same function objects, so the
  // two ports share one rate limit per client and one refusal log (ollama/app.ts).
  const chain: ProxyMiddleware[] = [
    requestId(),
    requestLog(logger, metrics, inFlight, deps.now, services.usage),
    errorRenderer(logger, familyErrorShapes),
    hostGuard(config.allowedHosts, metrics, { checkNames: isLoopbackHost(config.host), refusals }),
    crossSiteGuard(config.corsOrigins, metrics, refusals),
    cors(config.corsOrigins),
    accessKey(ownerKey, {
      everything: config.accessKey !== undefined || config.requireAccessKey,
      fileToolsNeedKey: components.fileToolsNeedKey,
    }),
    rateLimit(config.rateLimitPerMinute, config.rateLimitBurst, deps.now, () => metrics.rateLimited(deps.now())),
  ];
  const app = new Koa<ProxyState>({ proxy: false });
  app.silent = true; // errors are rendered and logged by errorRenderer; Koa's default printer would log stacks
  // The main listener's pipeline: the chain, then its routes. An HTTP request runs it through Koa; a request that
  // comes on a Responses socket runs the same function objects, composed, through http/exchange.ts.
  for (const middleware of [...chain, fallthrough(router), router.routes() as ProxyMiddleware]) app.use(middleware);
  const exchange = new Exchange(app, compose<ProxyContext>(app.middleware));
  const ollamaApp = config.ollamaPort === undefined ? undefined : createOllamaApp(services, components, chain);

  const listeners = new Listeners({
    config,
    logger,
    metrics,
    now: deps.now,
    refusals,
    inFlight,
    app,
    ollamaApp,
    attach: (server) => responseSockets.attach(server, exchange),
  });
  // Tool mode's per-conversation MCP servers count in the main listener's connection cap (docs/tool-mode.md).
  components.admitSockets(listeners.admitSocket);

  async function listen() {
    const firstProbe = probe.refresh().catch((err: Error) => logger.warn({ err: err.message }, 'CLI probe failed'));
    const bound = await listeners.listen();
    probe.start(config.healthRefreshMs);
    components.startCatalog();
    await Promise.race([firstProbe, new Promise((r) => setTimeout(r, firstProbeWaitMs).unref())]);
    return bound;
  }

  async function close(graceMs = config.shutdownGraceMs) {
    probe.stop();
    responseSockets.shutdown();
    await listeners.close(graceMs);
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
      return listeners.server;
    },
    get port() {
      return listeners.port;
    },
    ollama: () => listeners.ollama(),
    respapiSessions: components.respapi.sessions,
    ownerKey,
    cliPool: () => components.cli.poolSnapshot(),
    cliLive: () => components.cli.liveSnapshot(),
    catalog: components.catalog,
  };
}
