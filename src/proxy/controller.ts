// ProxyController owns one proxy server for the desktop app (and tests): start, stop, restart on setting
// changes, status snapshots and change events. A settings change that cannot start (port taken) rolls back to
// the previous settings and keeps the old server running, so the user never loses a working proxy.

import { EventEmitter } from 'node:events';
import { createServer } from 'node:net';
import type { CliPoolSnapshot, LiveConversationsSnapshot } from './components.js';
import { ConfigError, validateSettings, type Config, type Settings } from './config.js';
import type { ControlStatus, SettingsResult } from './control-api.js';
import { formatUptime } from './health/health-record.js';
import { createLogger, type Logger } from './logger.js';
import type { MetricsSummary, RequestRecord } from './metrics.js';
import { createProfile, type Profile } from './profile.js';
import type { SessionView } from './respapi/session-registry.js';
import { PortInUseError } from './listen/bind.js';
import { createProxy, type ProxyServer } from './server.js';
import { serviceVersion, type ProxyDeps } from './services.js';
import { createModelCatalog } from './models/model-catalog.js';
import type { UsageLedger } from './usage/ledger.js';
import type { UsageSink } from './usage/types.js';

interface ControllerOptions {
  settings: Settings;
  /** Settings beneath `settings` that are never persisted: the desktop app's data directory (start-up.ts). */
  defaults?: Settings;
  profile?: Profile;
  logger?: Logger;
  deps?: Partial<ProxyDeps>;
  /** The usage ledger every proxy this controller starts records into (docs/usage.md); the caller opens and closes
   * it, since it outlives a restart (a port change). */
  usage?: UsageSink | UsageLedger;
  /** The owner's key (start-up.ts ownerKeyFor) every proxy this controller starts takes, unless PROXY_ACCESS_KEY is set. */
  ownerKey?: string;
  /** Persists settings after a successful change (the app's electron-store). */
  persist?: (settings: Settings) => void | Promise<void>;
  /** Milliseconds before token expiry that count as "expiring soon" (default one day). */
  expiryWarningMs?: number;
}

function poolView(p: CliPoolSnapshot): NonNullable<ControlStatus['cliPool']> {
  return { enabled: p.enabled, size: p.size, warm: p.warm, hits: p.hits, misses: p.misses, rssBytes: p.rssBytes };
}

function liveView(l: LiveConversationsSnapshot): NonNullable<ControlStatus['cliLive']> {
  return {
    enabled: l.enabled,
    max: l.max,
    live: l.live,
    busy: l.busy,
    idle: l.idle,
    waitingForTools: l.waitingForTools,
    continued: l.continued,
    rssBytes: l.rssBytes,
  };
}

export class ProxyController extends EventEmitter {
  private settings: Settings;
  private config: Config;
  private proxy: ProxyServer | undefined;
  private state: ControlStatus['state'] = 'stopped';
  private lastError: string | undefined;
  private readonly profile: Profile;
  private readonly logger: Logger;
  private queue: Promise<unknown> = Promise.resolve();
  private notices: string[] = [];

  constructor(private readonly opts: ControllerOptions) {
    super();
    this.profile = opts.profile ?? createProfile();
    this.settings = { ...opts.settings };
    this.config = validateSettings({ ...opts.defaults, ...this.settings }, this.profile);
    this.logger = opts.logger ?? createLogger(this.config.logLevel);
  }

  /** Serialises start/stop/restart so overlapping clicks cannot race. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.queue.then(fn, fn);
    this.queue = next.catch(() => undefined);
    return next;
  }

  getConfig(): Config {
    return this.config;
  }

  start(): Promise<ControlStatus> {
    return this.serial(() => this.startNow());
  }

  /** Stops the server; `graceMs` bounds how long in-flight streams may finish (Quit uses a short one). */
  stop(graceMs?: number): Promise<ControlStatus> {
    return this.serial(async () => {
      await this.stopNow(graceMs);
      return this.status();
    });
  }

  private async startNow(): Promise<ControlStatus> {
    if (this.proxy) return this.status();
    this.setState('starting');
    // The log level is a setting the window can change: the shared logger follows it on every (re)start.
    this.logger.level = this.config.logLevel;
    const proxy = createProxy({
      config: this.config,
      profile: this.profile,
      logger: this.logger,
      deps: this.opts.deps,
      usage: this.opts.usage,
      ownerKey: this.opts.ownerKey,
    });
    try {
      await proxy.listen();
    } catch (err) {
      await proxy.close(0).catch(() => undefined);
      this.lastError = (err as Error).message;
      this.setState('error');
      throw err;
    }
    this.proxy = proxy;
    this.lastError = undefined;
    proxy.services.probe.on('change', () => this.emit('status', this.status()));
    proxy.catalog.onChange(() => this.emit('status', this.status()));
    this.setState('running');
    return this.status();
  }

  private async stopNow(graceMs?: number): Promise<void> {
    const proxy = this.proxy;
    if (!proxy) {
      if (this.state !== 'error') this.setState('stopped');
      return;
    }
    this.setState('stopping');
    this.proxy = undefined;
    await proxy.close(graceMs);
    this.setState('stopped');
  }

  /** Validates and applies a settings patch; restarts a running server when anything changed. */
  updateSettings(patch: Settings): Promise<SettingsResult> {
    return this.serial(async () => {
      const next = { ...this.settings, ...patch };
      for (const [k, v] of Object.entries(next))
        if (v === undefined || v === '') delete (next as Record<string, unknown>)[k];
      let config: Config;
      try {
        config = validateSettings({ ...this.opts.defaults, ...next }, this.profile);
      } catch (err) {
        const message = err instanceof ConfigError ? err.message : String(err);
        const key = err instanceof ConfigError && err.key ? err.key : (Object.keys(patch)[0] ?? 'settings');
        return { ok: false, errors: { [key]: message }, message, status: this.status() };
      }
      const previous = { settings: this.settings, config: this.config };
      if (JSON.stringify(config) === JSON.stringify(this.config)) {
        // Nothing effective changed: no restart, so open streams are not cut for a no-op "Apply".
        this.settings = next;
        await this.opts.persist?.(this.settings);
        return { ok: true, status: this.status() };
      }
      const wasRunning = this.proxy !== undefined;
      this.settings = next;
      this.config = config;
      if (wasRunning) {
        await this.stopNow(2000);
        try {
          await this.startNow();
        } catch (err) {
          // Roll back: keep the user's working proxy.
          this.settings = previous.settings;
          this.config = previous.config;
          // The window shows this beside the port field: name the port, not the CLI's --port/PORT knobs.
          const message =
            err instanceof PortInUseError
              ? `Port ${err.port} already in use on ${err.host}: choose another port.`
              : `Could not start with the new settings: ${(err as Error).message}`;
          try {
            await this.startNow();
          } catch {
            /* the old settings no longer start either; status shows the error */
          }
          return {
            ok: false,
            errors: err instanceof PortInUseError ? { port: message } : undefined,
            message: `${message} The previous settings were kept.`,
            status: this.status(),
          };
        }
      }
      await this.opts.persist?.(this.settings);
      return { ok: true, status: this.status() };
    });
  }

  async checkPort(port: number): Promise<{ free: boolean; message?: string }> {
    if (this.proxy && port === this.proxy.port) return { free: true, message: 'in use by this proxy' };
    return new Promise((resolve) => {
      const s = createServer();
      s.once('error', (err: NodeJS.ErrnoException) =>
        resolve({
          free: false,
          message:
            err.code === 'EADDRINUSE'
              ? `Port ${port} already in use on ${this.config.host}`
              : `Port ${port} cannot be used (${err.code})`,
        }),
      );
      s.listen(port, this.config.host, () => s.close(() => resolve({ free: true })));
    });
  }

  metrics(): MetricsSummary | undefined {
    return this.proxy?.services.metrics.summary();
  }

  /** The running proxy's response-API sessions (SessionRegistry.snapshot's view, no secrets). */
  sessions(): SessionView[] {
    return this.proxy?.respapiSessions.snapshot(200).sessions ?? [];
  }

  endSession(id: string): SessionView[] {
    this.proxy?.respapiSessions.delete(id);
    return this.sessions();
  }

  recentRequests(): RequestRecord[] {
    return this.proxy?.services.metrics.recentRequests() ?? [];
  }

  /** The running proxy, for tests and the main process (e.g. to read the bound port). */
  current(): ProxyServer | undefined {
    return this.proxy;
  }

  /** Refreshes the CLI probe now (the login watcher's tick). */
  async refreshProbe(): Promise<ControlStatus> {
    await this.proxy?.services.probe.refresh();
    return this.status();
  }

  status(): ControlStatus {
    const proxy = this.proxy;
    const services = proxy?.services;
    const snap = services?.probe.snapshot();
    const port = proxy?.port ?? this.config.port;
    const host = this.config.host;
    const attention: string[] = [];
    if (this.state === 'error' && this.lastError) attention.push(this.lastError);
    if (snap && this.config.modes.includes('tool')) {
      if (snap.cli.status === 'unhealthy')
        attention.push('Assistant CLI not found: install it or set its path in Settings');
      else if (snap.cli.status === 'error')
        attention.push(`Assistant CLI check failed: ${snap.cli.error ?? 'unknown error'}`);
      if (snap.auth.status === 'unauthenticated') attention.push('Assistant CLI is not logged in: log in with the CLI');
      // An access token that a refresh token renews ends every few hours as a matter of course: only a login's own
      // end needs the user (the window sat amber all day for a routine renewal).
      if (snap.auth.expires && !snap.auth.renews) {
        const left = Date.parse(snap.auth.expires) - (this.opts.deps?.now ?? Date.now)();
        if (left < 0) attention.push('The CLI login token has expired: log in again with the CLI');
        else if (left < (this.opts.expiryWarningMs ?? 24 * 3_600_000))
          attention.push(`The CLI login token expires at ${snap.auth.expires}`);
      }
    }
    const ollama = this.ollamaView(proxy);
    if (ollama.message) attention.push(ollama.message);
    // Clients refused by the rate limit in the last five minutes: the window says so, and how to raise it.
    const limitedAt = services?.metrics.lastRateLimitedAt;
    if (services && limitedAt !== undefined && services.deps.now() - limitedAt < 5 * 60_000) {
      attention.push(
        `Clients are being rate limited (${services.metrics.rateLimitedTotal} requests refused since start, ${this.config.rateLimitPerMinute} a minute allowed): raise "Rate limit" in Settings (RATE_LIMIT_PER_MINUTE) if they are yours`,
      );
    }
    return {
      state: this.state,
      host,
      port,
      error: this.state === 'error' ? this.lastError : undefined,
      attention,
      modes: this.config.modes,
      version: serviceVersion(),
      cli: snap ? { ...snap.cli } : { status: 'unknown', searchedPaths: [] },
      cliPool: proxy && this.state === 'running' ? poolView(proxy.cliPool()) : undefined,
      cliLive: proxy && this.state === 'running' ? liveView(proxy.cliLive()) : undefined,
      auth: snap
        ? {
            status: snap.auth.status,
            loggedIn: snap.auth.loggedIn,
            user: snap.auth.user,
            subscription: snap.auth.subscription,
            expires: snap.auth.expires,
            renews: snap.auth.renews,
          }
        : { status: 'unknown', loggedIn: false },
      uptime: services ? formatUptime(services.deps.now() - services.startedAt) : undefined,
      requestsProcessed: services?.metrics.requestsTotal ?? 0,
      errors: services?.metrics.errorsTotal ?? 0,
      notices: [...this.notices],
      ...this.modelView(proxy),
      sdk: { providerName: this.profile.providerName, ...this.profile.sdk },
      ollama,
    };
  }

  /** The Ollama listener's state for the window: off unless the proxy runs with OLLAMA_PORT set. */
  private ollamaView(proxy: ProxyServer | undefined): ControlStatus['ollama'] {
    const mode = this.config.ollamaMode;
    const listener = proxy && this.state === 'running' ? proxy.ollama() : { state: 'off' as const };
    if (listener.state === 'off') return { state: 'off', mode };
    if (listener.state === 'listening') return { state: 'listening', port: listener.port, mode };
    // The window's words: the remedy is a setting there, not a flag.
    const message =
      listener.state === 'port-in-use'
        ? `Ollama port ${listener.port} is already in use (is Ollama itself running?): the Ollama API is off, the proxy runs on. Choose another Ollama port in Settings.`
        : listener.message;
    return { state: listener.state, port: listener.port, message, mode };
  }

  /** The running proxy's catalog; before a start, the built-in fallback (the same one a proxy starts from). */
  private modelView(
    proxy: ProxyServer | undefined,
  ): Pick<ControlStatus, 'models' | 'modelDetails' | 'defaultModel' | 'modelCatalog'> {
    const catalog = proxy?.catalog ?? createModelCatalog(this.profile, []);
    const snap = proxy?.catalog.snapshot();
    return {
      models: [...catalog.ids, ...this.profile.respapiModels.map((m) => m.id)],
      modelDetails: catalog.models.map((m) => {
        const deprecations = this.profile.modelDeprecations;
        const deprecated = Object.hasOwn(deprecations, m.id) ? deprecations[m.id] : undefined;
        return {
          id: m.id,
          ...(m.contextLength ? { contextLength: m.contextLength } : {}),
          ...(m.maxTokens ? { maxTokens: m.maxTokens } : {}),
          ...(m.capabilities
            ? {
                capabilities: {
                  thinking: m.capabilities.thinking,
                  efforts: m.capabilities.efforts,
                  structuredOutputs: m.capabilities.structuredOutputs,
                },
              }
            : {}),
          ...(deprecated ? { deprecated } : {}),
        };
      }),
      defaultModel: catalog.defaultModel,
      modelCatalog: snap
        ? { source: snap.source, ...(snap.readAt ? { readAt: snap.readAt } : {}) }
        : { source: 'fallback' },
    };
  }

  /** Adds a message the window shows until dismissed (a visible warning that is not a server error). */
  addNotice(notice: string): void {
    if (!this.notices.includes(notice)) this.notices.push(notice);
    this.emit('status', this.status());
  }

  dismissNotice(notice: string): ControlStatus {
    this.notices = this.notices.filter((n) => n !== notice);
    const status = this.status();
    this.emit('status', status);
    return status;
  }

  getSettings(): Config {
    return this.config;
  }

  private setState(state: ControlStatus['state']): void {
    this.state = state;
    this.emit('status', this.status());
  }
}
