// The long-lived parts of one proxy instance (docs/architecture.md): every object the routes use that lives longer
// than a request is built here, once, by the composition root (server.ts), which hands them to the route registrars;
// the registrars only route. Nothing is a module-level registry: two proxies in one process (tests, a restart on a
// port change) share nothing. This is also the one face of tool mode's engine for the rest of the proxy: what the
// composition root needs of it (the file-tools rule of the access key, the MCP servers' room in the connection cap,
// the figures the window shows) is asked here, never of modes/tool/ directly.
//   cli        CliBackend: the CLI children, their slots, the warm pool and the live conversations (tool mode)
//   provider   ProviderClient: the keep-alive pool to the provider API and the CLI's OAuth login (direct mode, and
//              tool mode's token counts)
//   direct     DirectBackend over it: direct mode's translated route (each request brings its own credential)
//   catalog    the model ids clients may send (docs/clients.md "Model ids"), the proxy's one catalog: the provider's
//              live list read through the CLI's login, cached in the data directory (docs/configuration.md "Models")
//   respapi    the response API client, its OAuth2 login, the instruction prompt and the session registry
// None of them does any I/O until a request needs it, so a proxy with a mode switched off opens nothing for it; the
// catalog reads its cache file here and the provider's list once the proxy listens (startCatalog).

import { compactionSeal, loadCompactionKey } from './responses/compaction/seal.js';
import { join } from 'node:path';
import { createRespapiCredential } from './auth/respapi-credentials.js';
import { CliBackend } from './modes/tool/engine/cli-backend.js';
import { DirectBackend } from './modes/direct/direct-backend.js';
import { findCli } from './health/find-cli.js';
import { withoutPaths, type HealthView } from './health/health-record.js';
import { LiveModelCatalog } from './models/live-catalog.js';
import { InstructionsSource, defaultInstructionsPath } from './respapi/instructions.js';
import { SessionRegistry } from './respapi/session-registry.js';
import type { Services } from './services.js';
import { ProviderClient } from './upstream/provider-client.js';
import { fetchProviderModels } from './upstream/provider-models.js';
import { RespapiClient } from './respapi/respapi-client.js';
import type { RespapiParts } from './respapi/routes.js';
import { ResponseStore } from './responses/store.js';
import type { ResponseChains } from './responses/chain-step.js';
import type { CliPoolSnapshot } from './modes/tool/engine/warm-pool.js';
import type { LiveConversationsSnapshot } from './modes/tool/engine/processes.js';

/** The warm CLI pool's and the live conversations' figures (/health/detailed, the desktop window). */
export type { CliPoolSnapshot, LiveConversationsSnapshot };

interface Components {
  cli: CliBackend;
  provider: ProviderClient;
  direct: DirectBackend;
  catalog: LiveModelCatalog;
  respapi: RespapiParts;
  /** A tool-mode chat needs the owner's key: tool mode is on and CLI_ALLOWED_TOOLS offers the CLI tools on the
   * owner's files (http/access-key.ts, docs/security.md). */
  fileToolsNeedKey: boolean;
  /** Sockets the parts open themselves (tool mode's per-conversation MCP servers) ask the main listener for room in
   * its connection cap (listen/listeners.ts): refused on false, else the function returned is called when they close. */
  admitSockets(admit: () => (() => void) | false): void;
  /** Reads the provider's model list now and daily, when a mode that uses it (tool, direct) is on. */
  startCatalog(): void;
  /** The kept Responses (docs/responses-store.md). */
  chains: ResponseChains;
  /** The components' own figures for /health/detailed; without the owner's key, no path (docs/security.md). */
  health(view: HealthView): Record<string, unknown>;
  /** Ends every CLI child and closes the upstream pools (after in-flight requests had their grace period). */
  close(): Promise<void>;
}

/** How long and how much of the kept Responses (docs/responses-store.md): the provider keeps them 30 days. */
const storedResponsesMaxAgeMs = 30 * 24 * 3600_000;
const storedResponsesMaxBytes = 256 * 1024 * 1024;

export function buildComponents(services: Services): Components {
  const { config, profile, logger, deps } = services;
  const chains: ResponseChains = {
    store: new ResponseStore({
      dir: join(config.dataDir, 'responses'),
      maxAgeMs: storedResponsesMaxAgeMs,
      maxBytes: storedResponsesMaxBytes,
      now: deps.now,
      warn: (fields, message) => logger.warn(fields, message),
    }),
    now: deps.now,
    seal: compactionSeal(loadCompactionKey(config.dataDir)),
  };
  const provider = new ProviderClient(services);
  // Built before the rest: an alias of an unknown model is a bad setting (ConfigError) before anything else is made.
  const catalog = new LiveModelCatalog({
    profile,
    userAliases: config.modelAliases,
    dataDir: config.dataDir,
    // Through the CLI's login, as direct mode's requests without a key of their own.
    fetchModels: (signal) => fetchProviderModels(services, provider, { kind: 'cli-oauth' }, signal),
    logger,
    now: deps.now,
  });
  const cli = new CliBackend({
    config,
    profile,
    logger,
    cliEnv: services.cliEnv,
    usage: services.usage,
    findCli: () =>
      findCli({
        cliPath: config.cliPath,
        names: profile.cli.executableNames,
        extraPaths: profile.cli.extraSearchPaths,
        envPath: deps.envPath,
      }),
  });
  const credential = createRespapiCredential({
    path: config.respapiCredentialsPath,
    tokenUrl: config.respapiOauthTokenUrl,
    profile,
    logger,
    timeoutMs: config.upstreamFirstByteTimeoutMs,
    now: deps.now,
  });
  const respapi: RespapiParts = {
    client: new RespapiClient({
      baseUrl: config.respapiBaseUrl,
      profile,
      credential,
      timeouts: config,
      usage: services.usage,
    }),
    sessions: new SessionRegistry({ idleMs: config.respapiSessionIdleMs, now: deps.now }),
    instructions: new InstructionsSource(config.respapiInstructionsPath ?? defaultInstructionsPath()),
  };
  return {
    cli,
    provider,
    direct: new DirectBackend({
      client: provider,
      messagesPath: profile.api.messagesPath,
      nonStreamingMaxTokens: profile.api.nonStreamingMaxTokens,
      nonStreamingMsPerToken: profile.api.nonStreamingMsPerToken,
    }),
    catalog,
    respapi,
    chains,
    fileToolsNeedKey: services.modeOn('tool') && cli.offersFileTools(),
    admitSockets: (admit) => cli.admitSockets(admit),
    startCatalog: () => {
      if (deps.readModelsAtStart !== false && (services.modeOn('tool') || services.modeOn('direct'))) catalog.start();
    },
    health: (view) => ({
      model_catalog: catalogHealth(catalog, view),
      cli_children: { children: cli.childCount(), slots: cli.slotCounts(), waitingForTools: cli.toolWaitingCount() },
      cli_pool: cli.poolSnapshot(),
      cli_conversations: cli.liveSnapshot(),
      stored_responses: chains.store.stats(),
      respapi_sessions: { status: services.modeOn('respapi') ? 'enabled' : 'disabled', ...respapi.sessions.snapshot() },
    }),
    close: async () => {
      catalog.close();
      await Promise.allSettled([cli.close(), provider.close(), respapi.client.close()]);
    },
  };
}

/**
 * /health/detailed's view of the catalog: which list is in use (live, cached, fallback) and when it was read. Its
 * cache file lies in the data directory, under the owner's home: shown only with the owner's key, and a path in the
 * last error is cut out without it.
 */
function catalogHealth(catalog: LiveModelCatalog, view: HealthView): Record<string, unknown> {
  const s = catalog.snapshot();
  return {
    source: s.source,
    read_at: s.readAt ?? null,
    models: s.count,
    ...(view.owner ? { cache_file: catalog.cachePath } : {}),
    default_model: catalog.defaultModel,
    // What each model takes, as the catalog has it (docs/models.md): what direct mode fits requests to.
    listed: catalog.models.map((m) => ({
      id: m.id,
      max_tokens: m.maxTokens ?? null,
      thinking: m.capabilities?.thinking ?? null,
      efforts: m.capabilities?.efforts ?? null,
      structured_outputs: m.capabilities?.structuredOutputs ?? null,
    })),
    ...(s.lastAttemptAt ? { last_attempt_at: s.lastAttemptAt } : {}),
    ...(s.lastError ? { last_error: view.owner ? s.lastError : withoutPaths(s.lastError) } : {}),
  };
}
