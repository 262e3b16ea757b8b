// Diagnose end to end against the fake CLI and the simulator: every check of every mode passes when all is well;
// a logged-out CLI and a refused direct-mode token each fail with a remedy in plain words; a missing response-API
// login (an optional mode) is "not set up", which does not fail the run; requests can go through a running proxy (with its access key) instead of a temporary one; and no token
// appears anywhere in the report or its text.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSettings, type Settings } from '../src/proxy/config.js';
import { runDiagnose } from '../src/proxy/diagnose/index.js';
import { withoutPrivateText } from '../src/proxy/diagnose/private-details.js';
import { createLogger } from '../src/proxy/logger.js';
import { createProxy } from '../src/proxy/server.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { startSimulator, writeCliCredentials, writeRespapiCredentials, type Simulator } from './simulator/index.js';

const cliToken = 'sk-ant-oat01-diagnose-secret-token-0123456789';
const refresh = 'sk-ant-ort01-diagnose-refresh-secret-0123456789';
const accessKey = 'diagnose-access-key-0123456789';

describe('diagnose', () => {
  let dir: string;
  let sim: Simulator;
  let fake: FakeCli;
  let base: Settings;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'diagnose-'));
    sim = await startSimulator();
    fake = await makeFakeCli({ version: '2.1.0 (Assistant CLI)', reply: 'OK' });
    base = {
      logLevel: 'silent',
      cliPath: fake.path,
      apiBaseUrl: sim.url,
      credentialsPath: await writeCliCredentials(join(dir, 'cli'), {
        accessToken: cliToken,
        refreshToken: refresh,
        expiresAt: Date.now() + 3 * 3_600_000,
      }),
      oauthTokenUrl: sim.cliTokenUrl,
      respapiBaseUrl: sim.respapiBaseUrl,
      respapiOauthTokenUrl: sim.respapiTokenUrl,
      respapiCredentialsPath: await writeRespapiCredentials(join(dir, 'respapi'), {}),
      dataDir: join(dir, 'data'),
      shutdownGraceMs: 200,
    };
  });

  afterAll(async () => {
    await fake?.cleanup();
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const secretsIn = (s: string) =>
    [cliToken, refresh, accessKey, 'diagnose-secret', 'refresh-secret'].filter((t) => s.includes(t));

  it('passes every check of every mode when all is well, through a temporary proxy', async () => {
    const { report, text, ok } = await runDiagnose(validateSettings(base));
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['cli', 'pass'],
      ['login', 'pass'],
      ['tool-request', 'pass'],
      ['direct-models', 'pass'],
      ['respapi-credentials', 'pass'],
      ['respapi-request', 'pass'],
    ]);
    expect(ok).toBe(true);
    expect(report.checks.find((c) => c.id === 'cli')?.detail).toBe(`found at ${fake.path}, version 2.1.0`);
    expect(report.checks.find((c) => c.id === 'login')?.detail).toMatch(
      /^logged in .*; the token expires in (2 h 5\d|3 h 0) min \(/,
    );
    // The tiny request uses the smallest current model of the catalog the proxy lists.
    expect(report.checks.find((c) => c.id === 'tool-request')?.detail).toMatch(
      /^assistant-haiku-4-5-20251001 answered in \d+ ms: "OK"/,
    );
    expect(report.target).toMatch(/^a temporary proxy on http:\/\/127\.0\.0\.1:\d+/);
    expect(text).toContain('[PASS] A tiny request through tool mode (tool)');
    expect(text.trim().endsWith('All checks passed.')).toBe(true);
    // The direct check reached the provider with the CLI's token (the simulator saw the model list call).
    expect(sim.requests('/v1/models').length).toBeGreaterThan(0);
    expect(secretsIn(JSON.stringify(report) + text)).toEqual([]);
  });

  it('leaves home paths and e-mail addresses out of the report unless a full one is asked for', async () => {
    const home = dirname(fake.path);
    const shared = await runDiagnose(validateSettings({ ...base, modes: ['tool'] }), { home });
    expect(shared.report.checks.find((c) => c.id === 'cli')?.detail).toBe(
      `found at ~/${basename(fake.path)}, version 2.1.0`,
    );
    expect(shared.text).not.toContain(home);
    const full = await runDiagnose(validateSettings({ ...base, modes: ['tool'] }), { home, full: true });
    expect(full.report.checks.find((c) => c.id === 'cli')?.detail).toBe(`found at ${fake.path}, version 2.1.0`);
    expect(
      withoutPrivateText('logged in as owner@example.com (max), config in /home/owner/.claude', '/home/owner'),
    ).toBe('logged in as <e-mail> (max), config in ~/.claude');
    expect(withoutPrivateText('/home/ownership/x', '/home/owner')).toBe('/home/ownership/x');
  });

  it('a user with only the CLI logged in passes: response-API mode is reported as not set up, with how to set it up', async () => {
    const { report, text, ok } = await runDiagnose(
      validateSettings({ ...base, respapiCredentialsPath: join(dir, 'nowhere', 'auth.json') }),
    );
    expect(ok).toBe(true);
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['cli', 'pass'],
      ['login', 'pass'],
      ['tool-request', 'pass'],
      ['direct-models', 'pass'],
      ['respapi-credentials', 'unset'],
    ]);
    expect(text).toContain('[NOT SET UP] Response-API credentials present (respapi): no response-API login at');
    expect(text).toMatch(/\n {7}To use it: Log in with the response-API CLI/);
    expect(text.trim().endsWith('All checks passed. (not set up: respapi)')).toBe(true);
  });

  it('a logged-out CLI fails with its remedy; what depends on it is skipped; a missing response-API login is not set up', async () => {
    const loggedOut = await makeFakeCli({ loggedIn: false });
    try {
      const { report, text, ok } = await runDiagnose(
        validateSettings({
          ...base,
          cliPath: loggedOut.path,
          respapiCredentialsPath: join(dir, 'nowhere', 'auth.json'),
        }),
      );
      expect(ok).toBe(false);
      const by = Object.fromEntries(report.checks.map((c) => [c.id, c]));
      expect(by.cli.status).toBe('pass');
      expect(by.login).toMatchObject({ status: 'fail', detail: 'the CLI is not logged in' });
      expect(by.login.remedy).toMatch(/Log in with the CLI: run `claude auth login`/);
      expect(by['tool-request']).toMatchObject({
        status: 'skip',
        remedy: 'needs the CLI found and logged in (see above)',
      });
      expect(by['respapi-credentials'].status).toBe('unset');
      expect(by['respapi-credentials'].remedy).toMatch(/Log in with the response-API CLI/);
      expect(by['respapi-request']).toBeUndefined();
      expect(text).toContain('[FAIL] CLI logged in (tool): the CLI is not logged in');
      expect(text).toMatch(/\n {7}Remedy: Log in with the CLI/);
      expect(text).toContain('1 check failed. (not set up: respapi)');
    } finally {
      await loggedOut.cleanup();
    }
  });

  it('a CLI that is not installed fails with the install hint', async () => {
    const { report } = await runDiagnose(
      validateSettings({ ...base, modes: ['tool'], cliPath: join(dir, 'no-such-cli') }),
    );
    expect(report.checks.map((c) => [c.id, c.status])).toEqual([
      ['cli', 'fail'],
      ['login', 'skip'],
      ['tool-request', 'skip'],
    ]);
    expect(report.checks[0].remedy).toMatch(/Install the assistant CLI/);
  });

  it('direct mode: a token the provider refuses fails the model-list check with what to do', async () => {
    sim.mintCliAccessToken(); // turns the simulator's allow-list on: our file's token is no longer accepted
    sim.knobs.refreshFail = true; // and the proxy's refresh of it fails too (a revoked login)
    try {
      const { report } = await runDiagnose(validateSettings({ ...base, modes: ['direct'] }));
      const direct = report.checks.find((c) => c.id === 'direct-models');
      expect(direct?.status).toBe('fail');
      expect(direct?.remedy).toMatch(/Log in with the CLI/);
      expect(secretsIn(JSON.stringify(report))).toEqual([]);
    } finally {
      sim.reset();
    }
  });

  it('sends the test requests through a running proxy, with its access key, when given its URL', async () => {
    const config = validateSettings({ ...base, port: 0, accessKey, modes: ['tool', 'direct'] });
    const proxy = createProxy({ config, logger: createLogger('silent') });
    const { url } = await proxy.listen();
    try {
      // The running proxy has read the provider's model list (docs/configuration.md "Models").
      await proxy.catalog.refresh();
      const before = proxy.services.metrics.requestsTotal;
      const { report, text, ok } = await runDiagnose(config, { proxyUrl: url });
      expect(ok).toBe(true);
      expect(report.target).toBe(url);
      // Its model list (for the smallest model), the tiny request, and direct mode's model list.
      expect(proxy.services.metrics.requestsTotal - before).toBe(3);
      expect(secretsIn(JSON.stringify(report) + text)).toEqual([]);
    } finally {
      await proxy.close(0);
    }
  });
});
