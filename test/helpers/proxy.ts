// Starts a real proxy on 127.0.0.1 with an OS-chosen port for a test, with quiet logs captured in memory so
// tests can assert on what was logged (and that no secret was).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { validateSettings, type Settings } from '../../src/proxy/config.js';
import { createLogger } from '../../src/proxy/logger.js';
import { createProfile, type ProfileOverrides } from '../../src/proxy/profile.js';
import { createProxy, type ProxyServer } from '../../src/proxy/server.js';
import type { ProxyDeps } from '../../src/proxy/services.js';
import type { UsageSink } from '../../src/proxy/usage/types.js';

export interface TestProxy {
  url: string;
  port: number;
  proxy: ProxyServer;
  /** The owner's key: /usage/* and the e-mail and paths of /health/detailed need it (docs/security.md). */
  ownerKey: string;
  /** Headers carrying the owner's key. */
  owner: { 'x-proxy-access-key': string };
  /** Every log line written so far, parsed. */
  logs(): Array<Record<string, unknown>>;
  /** The raw log text (to assert that a secret never appears). */
  logText(): string;
  close(): Promise<void>;
}

export async function startProxy(
  settings: Settings = {},
  opts: { deps?: Partial<ProxyDeps>; profile?: ProfileOverrides; usage?: UsageSink } = {},
): Promise<TestProxy> {
  const profile = createProfile(opts.profile ?? {});
  // No warm CLI pool and no live conversations unless a test asks for them: tests count the CLI children a request
  // starts, and expect each to end after its answer.
  // A data directory of its own unless the test names one: the model catalog's cache (docs/configuration.md
  // "Models") and other user data never land in the developer's real one, nor leak from one test into another.
  const ownDataDir = settings.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'proxy-data-')) : undefined;
  const config = validateSettings(
    {
      port: 0,
      logLevel: 'debug',
      healthRefreshMs: 60_000,
      shutdownGraceMs: 1000,
      cliPoolSize: 0,
      cliLiveMax: 0,
      // Never the real provider, even on a machine with a CLI login: a bed that names no upstream gets a closed
      // local port (an unknown model id re-reads the provider's model list in any mode).
      apiBaseUrl: 'http://127.0.0.1:9',
      oauthTokenUrl: 'http://127.0.0.1:9/token',
      ...(ownDataDir ? { dataDir: ownDataDir } : {}),
      ...settings,
    },
    profile,
  );
  let text = '';
  const sink = new Writable({
    write(chunk, _enc, cb) {
      text += chunk.toString();
      cb();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  // The model catalog is read from the provider when a test asks (proxy.catalog.refresh()) or on an unknown id, not
  // at start: a bed that counts every provider call and token refresh sees only its own (test/model-catalog.test.ts
  // covers the read at start).
  const proxy = createProxy({
    config,
    profile,
    logger,
    deps: { readModelsAtStart: false, ...opts.deps },
    usage: opts.usage,
  });
  const { port, url } = await proxy.listen();
  return {
    url,
    port,
    proxy,
    ownerKey: proxy.ownerKey,
    owner: { 'x-proxy-access-key': proxy.ownerKey },
    logs: () => {
      return text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    },
    logText: () => {
      return text;
    },
    close: async () => {
      await proxy.close(500);
      if (ownDataDir) rmSync(ownDataDir, { recursive: true, force: true });
    },
  };
}
