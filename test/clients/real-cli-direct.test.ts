// Client matrix (docs/clients.md): the assistant CLI itself as a client of direct mode. Its own base-URL variable
// (profile.cli.baseUrlEnv) points at the proxy's /api, with a dummy key; the proxy puts its OAuth login in place of
// the dummy and forwards to the provider simulator. So a user can run the CLI through the proxy and see it in the
// proxy's logs and metrics. The real binary is large and not a dependency: the test runs when the test set-up put it
// in .cache/real-cli (or REAL_ASSISTANT_CLI names one) and is skipped with that reason otherwise.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProfile } from '../../src/proxy/profile.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from '../simulator/index.js';

const cached = fileURLToPath(
  new URL('../../.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe', import.meta.url),
);
const cliPath = process.env.REAL_ASSISTANT_CLI || cached;
const present = existsSync(cliPath);
if (!present)
  console.warn(
    `[real-cli-direct.test] skipped: no real assistant CLI at ${cliPath} (run npm run test:setup, or set REAL_ASSISTANT_CLI)`,
  );

const profile = createProfile();
const proxyToken = 'sk-ant-oat01-proxy-login-for-the-cli';
const reply = 'Hello from the simulator through direct mode';

describe.skipIf(!present)('the real assistant CLI as a client of direct mode (/api)', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let home: string;

  beforeAll(async () => {
    // The CLI sends its own tools with every request; a model that answers text is what this test needs.
    sim = await startSimulator({ knobs: { replyText: reply, answerTools: false } });
    home = await mkdtemp(join(tmpdir(), 'real-cli-direct-'));
    const proxyDir = join(home, 'proxy-login');
    await mkdir(proxyDir, { recursive: true });
    const credentialsPath = await writeCliCredentials(proxyDir, {
      accessToken: proxyToken,
      refreshToken: 'sk-ant-ort01-proxy',
      expiresAt: Date.now() + 3_600_000,
    });
    proxy = await startProxy({
      modes: ['direct'],
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      rateLimitPerMinute: 1000,
    });
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  /** Runs the CLI in print mode with an empty HOME of its own: no login but the dummy key. */
  const runCli = (outputFormat: 'json' | 'stream-json') =>
    execa(
      cliPath,
      [
        '-p',
        'say hi',
        '--output-format',
        outputFormat,
        ...(outputFormat === 'stream-json' ? ['--verbose', '--include-partial-messages'] : []),
      ],
      {
        cwd: home,
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          HOME: join(home, 'cli-home'),
          [profile.cli.baseUrlEnv]: `${proxy.url}/api`,
          ANTHROPIC_API_KEY: 'dummy',
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
          [profile.cli.maxRetriesEnv]: '0',
        },
        extendEnv: false,
        stdin: 'ignore',
        timeout: 90_000,
        reject: false,
      },
    );

  it('answers through the proxy with the OAuth login in place of its dummy key, result as JSON', async () => {
    const run = await runCli('json');
    expect(run.exitCode).toBe(0);
    const result = JSON.parse(run.stdout) as { result: string; is_error: boolean };
    expect(result).toMatchObject({ is_error: false, result: reply });
    const calls = sim.requests('/v1/messages');
    expect(calls.length).toBeGreaterThan(0);
    const last = calls.at(-1)!;
    expect(last.headers.authorization).toBe(`Bearer ${proxyToken}`);
    expect(last.headers['x-api-key']).toBeUndefined();
    // The CLI's own tools went through direct mode untouched (it declares them on every request).
    expect(
      Array.isArray((last.json as { tools?: unknown[] }).tools) && (last.json as { tools: unknown[] }).tools.length > 0,
    ).toBe(true);
    expect(proxy.logText()).not.toContain(proxyToken);
  }, 120_000);

  it('streams token by token through the proxy (stream-json with partial messages)', async () => {
    const run = await runCli('stream-json');
    expect(run.exitCode).toBe(0);
    const lines = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; event?: { type: string; delta?: { type: string; text?: string } } });
    const deltas = lines.filter(
      (l) =>
        l.type === 'stream_event' && l.event?.type === 'content_block_delta' && l.event.delta?.type === 'text_delta',
    );
    expect(deltas.map((d) => d.event!.delta!.text).join('')).toBe(reply);
    expect(deltas.length).toBeGreaterThan(1);
  }, 120_000);
});
