// The controller reads time from the injected clock (ProxyDeps.now) like the rest of the proxy, so "the login
// token expires soon" follows the same clock as health and metrics.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyController } from '../src/proxy/controller.js';
import { createLogger } from '../src/proxy/logger.js';
import { defaultProfile } from '../src/proxy/profile.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { childEnv } from './helpers/tool-proxy.js';
import { writeCliCredentials } from './simulator/credentials.js';

// A closed local port as the provider: the catalog's read at start never leaves this machine (docs/testing.md).
const noProvider = 'http://127.0.0.1:9';

let controller: ProxyController | undefined;
let cli: FakeCli | undefined;
let dir: string | undefined;
afterEach(async () => {
  await controller?.stop();
  await cli?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
  controller = undefined;
});

describe('ProxyController clock', () => {
  it('warns of a login ending within a day of the injected clock, not of the wall clock', async () => {
    dir = await mkdtemp(join(tmpdir(), 'controller-time-'));
    const expiresAt = Date.now() + 30 * 24 * 3_600_000; // a month away by the wall clock
    // No refresh token: the token's end is the login's end, which the user must act on.
    const credentialsPath = join(dir, '.credentials.json');
    await writeFile(
      credentialsPath,
      JSON.stringify({ [defaultProfile.credentials.rootKey]: { accessToken: 'sk-test-access', expiresAt } }),
      { mode: 0o600 },
    );
    cli = await makeFakeCli({ loggedIn: true });
    const now = () => expiresAt - 2 * 3_600_000; // two hours before expiry by the injected clock
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, cliPath: cli.path, credentialsPath, modes: ['tool'] },
      logger: createLogger('silent'),
      deps: { now, childEnv },
    });
    const status = await controller.start();
    expect(status.state).toBe('running');
    expect(status.auth.loggedIn).toBe(true);
    expect(status.attention.join(' ')).toMatch(/token expires at/);
  });

  it('does not warn of an access token that a refresh token renews, however close its end (a routine renewal)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'controller-time-'));
    const expiresAt = Date.now() + 3_600_000;
    const credentialsPath = await writeCliCredentials(dir, {
      accessToken: 'sk-test-access',
      refreshToken: 'sk-test-refresh',
      expiresAt,
    });
    cli = await makeFakeCli({ loggedIn: true });
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, cliPath: cli.path, credentialsPath, modes: ['tool'] },
      logger: createLogger('silent'),
      deps: { childEnv },
    });
    const status = await controller.start();
    expect(status.auth).toMatchObject({ loggedIn: true, renews: true, expires: new Date(expiresAt).toISOString() });
    expect(status.attention).toEqual([]);
  });

  it('puts a missing CLI in the attention list (the window and the tray turn amber)', async () => {
    dir = await mkdtemp(join(tmpdir(), 'controller-time-'));
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, cliPath: join(dir, 'no-such-cli'), modes: ['tool'] },
      logger: createLogger('silent'),
      deps: { childEnv },
    });
    const status = await controller.start();
    expect(status.state).toBe('running');
    expect(status.cli.status).toBe('unhealthy');
    expect(status.attention).toEqual(['Assistant CLI not found: install it or set its path in Settings']);
  });
});
