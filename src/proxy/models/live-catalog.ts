// The proxy's one model catalog, kept current (docs/configuration.md "Models"). The provider's own model list is
// read through the CLI's login (the same OAuth credential direct mode uses), at start, then daily, and again when
// a client names an unknown id (at most once a minute, so a typo cannot turn into a request storm). Each good read
// is kept owner-only in the data directory, so the next start lists it at once, even offline. Before any read
// the profile's list is the fallback. Health shows which of the three is in use and when it was read.
//
// Nothing here throws into a request: a failed read keeps the list in use and is logged (secrets redacted).

import { chmod, mkdir } from 'node:fs/promises';

import { readFileSync } from 'node:fs';

import { dirname, join } from 'node:path';

import { z } from 'zod';

import { writeFileAtomic } from '../auth/atomic-write.js';

import { isProxyError } from '../errors.js';

import type { Logger } from '../logger.js';

import { redactSecrets } from '../redact.js';

import type { Profile } from '../profile.js';
import { createModelCatalog, type CatalogSource, type ModelCatalog, type ResolvedModel } from './model-catalog.js';
import { nativeEfforts, type ModelInfo } from '../profile-models.js';

/** The cache file's name in the data directory. */
const catalogCacheFile = 'models.json';
const dayMs = 24 * 3_600_000;
const unknownIdRetryMs = 60_000;

const cacheSchema = z.object({
  version: z.literal(1),
  readAt: z.string(),
  models: z
    .array(
      z.object({
        id: z.string().min(1),
        created: z.number(),
        contextLength: z.number().int().positive().optional(),
        maxTokens: z.number().int().positive().optional(),
        capabilities: z
          .object({
            thinking: z.array(z.enum(['adaptive', 'enabled'])),
            efforts: z.array(z.enum(nativeEfforts)),
            structuredOutputs: z.boolean(),
            imageInput: z.boolean(),
            pdfInput: z.boolean(),
          })
          .optional(),
      }),
    )
    .min(1),
});

export interface CatalogState {
  source: CatalogSource;
  /** When the listed models were read from the provider (ISO 8601); absent for the fallback. */
  readAt?: string;
  count: number;
  /** The last failed read, redacted; cleared by a good one. */
  lastError?: string;
  lastAttemptAt?: string;
}

interface LiveCatalogOptions {
  profile: Profile;
  userAliases: readonly string[];
  /** The data directory: the cache is `<dataDir>/models.json`. */
  dataDir: string;
  /** Reads the provider's list (upstream/provider-models.ts); throws when it cannot. */
  fetchModels: (signal: AbortSignal) => Promise<ModelInfo[]>;
  logger: Logger;
  now?: () => number;
  refreshMs?: number;
  unknownRetryMs?: number;
}

/** The catalog as the routes need it: the models, resolution, and which list is in use. */
export type ListedCatalog = ModelCatalog & {
  snapshot(): CatalogState;
  resolveFresh(requested: string): Promise<ReturnType<ModelCatalog['resolve']>>;
  refreshUnlessRecent(ms: number): Promise<void>;
};

/** What a list leaves out of a model the profile knows (its window, limit, capabilities) is the profile's: an older
 * list or cache without them still fits requests by what the model takes (docs/models.md). */
function withProfileFacts(profile: Profile, models: readonly ModelInfo[]): ModelInfo[] {
  const known = new Map(profile.models.map((m) => [m.id, m]));
  return models.map((m) => {
    const own = known.get(m.id);
    if (!own) return m;
    const merged: ModelInfo = { ...m };
    const contextLength = m.contextLength ?? own.contextLength;
    const maxTokens = m.maxTokens ?? own.maxTokens;
    const capabilities = m.capabilities ?? own.capabilities;
    if (contextLength) merged.contextLength = contextLength;
    if (maxTokens) merged.maxTokens = maxTokens;
    if (capabilities) merged.capabilities = capabilities;
    return merged;
  });
}

export class LiveModelCatalog implements ModelCatalog {
  private catalog: ModelCatalog;
  private state: CatalogState;
  private lastAttempt = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private readonly abort = new AbortController();
  private readonly warned = new Set<string>();
  private readonly now: () => number;
  private readonly listeners: Array<() => void> = [];
  readonly cachePath: string;

  /** Reads the cache synchronously, so the first request already sees it; MODEL_ALIASES is checked here (exit 2). */
  constructor(private readonly opts: LiveCatalogOptions) {
    this.now = opts.now ?? Date.now;
    this.cachePath = join(opts.dataDir, catalogCacheFile);
    const cached = this.readCache();
    this.state = cached
      ? { source: 'cached', readAt: cached.readAt, count: cached.models.length }
      : { source: 'fallback', count: opts.profile.models.length };
    this.catalog = createModelCatalog(opts.profile, opts.userAliases, {
      listed: cached ? withProfileFacts(opts.profile, cached.models) : undefined,
      describe: cached
        ? `the cached provider list ${this.cachePath}, read ${cached.readAt}, and the built-in fallback list`
        : "the built-in fallback list; the provider's own list has not been read yet",
      onUnlistedAlias: (alias, target) =>
        opts.logger.info(
          { alias, target },
          'MODEL_ALIASES names a model the saved list does not have; checked when the provider list is read',
        ),
    });
  }

  get ids() {
    return this.catalog.ids;
  }
  get models() {
    return this.catalog.models;
  }
  get aliases() {
    return this.catalog.aliases;
  }
  get defaultModel() {
    return this.catalog.defaultModel;
  }
  get smallestModel() {
    return this.catalog.smallestModel;
  }

  resolve(requested: string): ResolvedModel {
    const resolved = this.catalog.resolve(requested);
    if (resolved.deprecation && !this.warned.has(resolved.id)) {
      // Once per model per process: the Warning header tells each client, the log tells the user.
      this.warned.add(resolved.id);
      this.opts.logger.warn({ model: resolved.id, requested }, resolved.deprecation);
    }
    return resolved;
  }

  /** resolve(), but an unknown id first re-reads the provider's list (at most once a minute): a new model works
   * the minute it ships. */
  async resolveFresh(requested: string): Promise<ResolvedModel> {
    try {
      return this.resolve(requested);
    } catch (err) {
      if (
        !isProxyError(err) ||
        err.kind !== 'model_not_found' ||
        this.now() - this.lastAttempt < (this.opts.unknownRetryMs ?? unknownIdRetryMs)
      )
        throw err;
      await this.refresh();
      return this.resolve(requested);
    }
  }

  providerModel(requested: string): string {
    try {
      this.resolve(requested); // a deprecated model's log line
    } catch {
      /* an unlisted id: direct mode sends it as it is and the provider answers for it */
    }
    return this.catalog.providerModel(requested);
  }

  publicName(servedId: string, fallback?: string): string {
    return this.catalog.publicName(servedId, fallback);
  }

  /** Called after each good read (the desktop window re-reads its model list). */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  snapshot(): CatalogState {
    return { ...this.state };
  }

  /** Reads now, then every refreshMs (the timer never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), this.opts.refreshMs ?? dayMs);
    this.timer.unref();
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.abort.abort();
  }

  /** A read now unless a good one started less than `ms` ago (a client's Cache-Control: no-cache, diagnose); after
   * a failed read, always (one at a time): the user may just have logged in. */
  refreshUnlessRecent(ms: number): Promise<void> {
    if (this.inFlight) return this.inFlight;
    return this.now() - this.lastAttempt < ms && !this.state.lastError ? Promise.resolve() : this.refresh();
  }

  /** One read at a time; a caller during a read waits for that read. Never throws. */
  refresh(): Promise<void> {
    this.inFlight ??= this.readProvider().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async readProvider(): Promise<void> {
    this.lastAttempt = this.now();
    this.state.lastAttemptAt = new Date(this.lastAttempt).toISOString();
    let models: ModelInfo[];
    try {
      models = await this.opts.fetchModels(this.abort.signal);
      if (models.length === 0) throw new Error('the provider listed no models');
    } catch (err) {
      if (this.abort.signal.aborted) return;
      const reason = redactSecrets(err instanceof Error ? err.message : String(err));
      this.state.lastError = reason;
      this.opts.logger.info(
        { reason, catalog: this.state.source },
        'provider model list unavailable; keeping the current model catalog',
      );
      return;
    }
    const readAt = new Date(this.now()).toISOString();
    delete this.state.lastError;
    this.install(models, readAt);
    await this.writeCache(models, readAt);
  }

  /** Takes a read list; an alias whose model the provider does not list is said in the log (once per read). */
  private install(models: ModelInfo[], readAt: string): void {
    const withContext = withProfileFacts(this.opts.profile, models);
    const unlisted: string[] = [];
    this.catalog = createModelCatalog(this.opts.profile, this.opts.userAliases, {
      listed: withContext,
      onUnknownAlias: (alias, target) => unlisted.push(`${alias}=${target}`),
      onUnlistedAlias: (alias, target) => unlisted.push(`${alias}=${target}`),
    });
    if (unlisted.length > 0)
      this.opts.logger.warn(
        { aliases: unlisted },
        'MODEL_ALIASES names models the provider does not list (docs/configuration.md "Models")',
      );
    this.state = { source: 'live', readAt, count: withContext.length, lastAttemptAt: this.state.lastAttemptAt };
    this.opts.logger.info({ models: withContext.length }, 'model catalog read from the provider');
    for (const listener of this.listeners) listener();
  }

  private readCache(): { readAt: string; models: ModelInfo[] } | undefined {
    let text: string;
    try {
      text = readFileSync(this.cachePath, 'utf8');
    } catch {
      return undefined;
    }
    try {
      return cacheSchema.parse(JSON.parse(text));
    } catch {
      this.opts.logger.warn(
        { file: this.cachePath },
        'model catalog cache unreadable; using the built-in list until the provider is read',
      );
      return undefined;
    }
  }

  private async writeCache(models: ModelInfo[], readAt: string): Promise<void> {
    try {
      await mkdir(dirname(this.cachePath), { recursive: true, mode: 0o700 });
      const body = {
        version: 1,
        readAt,
        models: models.map((m) => ({
          id: m.id,
          created: m.created,
          ...(m.contextLength ? { contextLength: m.contextLength } : {}),
          ...(m.maxTokens ? { maxTokens: m.maxTokens } : {}),
          ...(m.capabilities ? { capabilities: m.capabilities } : {}),
        })),
      };
      await writeFileAtomic(this.cachePath, `${JSON.stringify(body, null, 2)}\n`);
      // Owner-only even when an older copy had looser bits (writeFileAtomic keeps an existing file's mode).
      await chmod(this.cachePath, 0o600);
    } catch (err) {
      this.opts.logger.warn({ file: this.cachePath, err: (err as Error).message }, 'model catalog cache not written');
    }
  }
}
