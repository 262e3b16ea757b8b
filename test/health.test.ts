// Health (docs/interface.md "Health record", "Health states", "Health errors") against a real CLI probe: no CLI, the
// fake CLI logged in and out, and a CLI whose version command hangs. Health answers from a cached probe and never waits
// on a process.

import { chmod, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';

let proxy: TestProxy | undefined;
let cli: FakeCli | undefined;
afterEach(async () => {
  await proxy?.close();
  await cli?.cleanup();
  proxy = undefined;
  cli = undefined;
});

// As the owner (the owner's key): /health/detailed then shows paths and the e-mail (docs/security.md).
async function get(path: string, headers: Record<string, string> = proxy!.owner) {
  const res = await fetch(proxy!.url + path, { headers });
  return { status: res.status, body: (await res.json()) as any };
}

describe('health', () => {
  it('is 503 "CLI not found in PATH" with searched_paths when there is no CLI', async () => {
    const emptyDir = await mkdtemp(join(tmpdir(), 'nopath-'));
    proxy = await startProxy({}, { deps: { envPath: emptyDir }, profile: { cli: { extraSearchPaths: [] } } });
    const { status, body } = await get('/health');
    expect(status).toBe(503);
    expect(body).toMatchObject({ status: 'unhealthy', service: 'assistant-proxy', error: 'CLI not found in PATH' });
    // The open record holds no path (another local user may read it); the owner's detailed one does.
    expect(JSON.stringify(body)).not.toContain(emptyDir);
    expect(body.details.remedy).toMatch(/ASSISTANT_CLI_PATH/);
    const detailed = await get('/health/detailed');
    expect(detailed.body.components.assistant_cli.searched_paths).toEqual([join(emptyDir, 'claude')]);
    expect(new Date(body.timestamp).toISOString()).toBe(body.timestamp);
  });

  it('reports a missing ASSISTANT_CLI_PATH as the one searched path', async () => {
    proxy = await startProxy({ cliPath: '/nonexistent/claude' });
    const { status, body } = await get('/health');
    expect(status).toBe(503);
    expect(JSON.stringify(body)).not.toContain('/nonexistent');
    expect((await get('/health/detailed')).body.components.assistant_cli.searched_paths).toEqual([
      '/nonexistent/claude',
    ]);
    // Without the owner's key, the detailed record leaves the paths out too, and says why.
    const anonymous = await get('/health/detailed', {});
    expect(JSON.stringify(anonymous.body)).not.toContain('/nonexistent');
    expect(anonymous.body.withheld).toMatch(/owner's key/);
  });

  it('is 200 with the version when the fake CLI is on ASSISTANT_CLI_PATH and logged in', async () => {
    cli = await makeFakeCli({ version: '9.8.7' });
    proxy = await startProxy({ cliPath: cli.path });
    const { status, body } = await get('/health');
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'healthy', version: expect.any(String) });
    const detailed = await get('/health/detailed');
    expect(detailed.status).toBe(200);
    expect(detailed.body.components.assistant_cli).toMatchObject({
      status: 'healthy',
      path: cli.path,
      version: '9.8.7',
      authenticated: true,
    });
    expect(detailed.body.components.authentication).toMatchObject({ status: 'healthy', logged_in: true });
    expect(detailed.body.components.api_server).toMatchObject({
      status: 'healthy',
      port: proxy.port,
      host: '127.0.0.1',
    });
    expect(detailed.body.components.api_server.uptime).toMatch(/^\d+h \d+m \d+s$/);
    expect(detailed.body.configuration).toEqual({
      host: '127.0.0.1',
      port: proxy.port,
      log_level: 'DEBUG',
      cors_enabled: false,
    });
  });

  it("leaves the account's e-mail and the CLI's path out of /health/detailed without the owner's key", async () => {
    cli = await makeFakeCli();
    proxy = await startProxy({ cliPath: cli.path });
    const anonymous = await get('/health/detailed', {});
    expect(anonymous.status).toBe(200);
    expect(anonymous.body.components.authentication).toMatchObject({ status: 'healthy', logged_in: true });
    expect(anonymous.body.components.authentication.user).toBeUndefined();
    expect(anonymous.body.components.assistant_cli.path).toBe('');
    expect(JSON.stringify(anonymous.body)).not.toContain(cli.dir);
    const owner = await get('/health/detailed');
    expect(owner.body.components.assistant_cli.path).toBe(cli.path);
  });

  it('also finds the CLI on PATH', async () => {
    cli = await makeFakeCli();
    proxy = await startProxy({}, { deps: { envPath: cli.dir } });
    const detailed = await get('/health/detailed');
    expect(detailed.body.components.assistant_cli.path).toBe(cli.path);
  });

  it('is 503 "CLI authentication failed" with not_authenticated when the CLI is logged out', async () => {
    cli = await makeFakeCli({ loggedIn: false });
    proxy = await startProxy({ cliPath: cli.path });
    const { status, body } = await get('/health');
    expect(status).toBe(503);
    expect(body.error).toBe('CLI authentication failed');
    expect(body.details['claude-cli']).toBe('not_authenticated');
    expect(body.details.remedy).toMatch(/log in with the CLI/i);
    const detailed = await get('/health/detailed');
    expect(detailed.body.components.authentication).toMatchObject({ status: 'unauthenticated', logged_in: false });
  });

  it('is 500 "error" when the CLI exists but its version command hangs, and health does not wait for it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'hang-cli-'));
    const path = join(dir, 'claude');
    await writeFile(path, '#!/bin/sh\nsleep 30\n');
    await chmod(path, 0o755);
    proxy = await startProxy({ cliPath: path });
    // listen() waits at most a few seconds for the first probe; the version command times out after 5 s.
    const first = await get('/health');
    expect([500, 503]).toContain(first.status);
    await proxy.proxy.services.probe.refresh();
    const { status, body } = await get('/health');
    expect(status).toBe(500);
    expect(body.status).toBe('error');
    expect(body.error).toMatch(/timed out/);
  });

  it('counts requests and errors for the detailed record', async () => {
    cli = await makeFakeCli();
    proxy = await startProxy({ cliPath: cli.path });
    await fetch(proxy.url + '/v1/models');
    await fetch(proxy.url + '/v1/nope');
    const { body } = await get('/health/detailed');
    expect(body.components.api_server.requests_processed).toBe(2);
    expect(body.components.api_server.errors).toBe(1);
  });

  it('ignores the CLI for the overall status when tool mode is off', async () => {
    proxy = await startProxy({ modes: ['direct'], cliPath: '/nonexistent/claude' });
    const { status, body } = await get('/health');
    expect(status).toBe(200);
    expect(body.status).toBe('healthy');
  });
});
