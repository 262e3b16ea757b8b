// The CLI credential in direct mode (docs/interface.md "Authentication"): refreshed before it expires through the token
// URL, once however many requests wait, written back atomically with its other fields and permissions; a refresh
// failure is a 401 with the remedy that leaves the file as it was; a token the provider refuses is refreshed once and
// retried.

import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const oldToken = 'sk-ant-oat01-old-token-abcdef123456';
const oldRefresh = 'sk-ant-ort01-old-refresh-abcdef123456';

let sim: Simulator;
let dir: string;
let proxy: TestProxy | undefined;

beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim?.close();
});
beforeEach(async () => {
  sim.reset();
  dir = await mkdtemp(join(tmpdir(), 'direct-credentials-'));
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
  await rm(dir, { recursive: true, force: true });
});

async function withCredentials(expiresAt: number): Promise<{ path: string; proxy: TestProxy }> {
  const path = await writeCliCredentials(dir, { accessToken: oldToken, refreshToken: oldRefresh, expiresAt });
  // Another root key the CLI may keep in the same file: it must survive a rewrite.
  const stored = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
  await writeFile(path, JSON.stringify({ ...stored, otherTool: { keep: true } }));
  proxy = await startProxy({ apiBaseUrl: sim.url, credentialsPath: path, oauthTokenUrl: sim.cliTokenUrl });
  return { path, proxy };
}

const body = '{"model":"claude-sonnet-4-20250514","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}';

function post(p: TestProxy, path = '/api/v1/messages', payload = body) {
  return fetch(p.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'dummy' },
    body: payload,
  });
}

describe('direct mode credential refresh', () => {
  it('refreshes an expired token exactly once for 50 concurrent requests and writes the file back intact', async () => {
    sim.knobs.refreshDelayMs = 150;
    const { path, proxy: p } = await withCredentials(Date.now() - 60_000);
    const client = new Anthropic({ apiKey: 'dummy', baseURL: `${p.url}/api`, maxRetries: 0 });
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        client.messages.create({
          model: 'claude-sonnet-4-20250514',
          max_tokens: 8,
          messages: [{ role: 'user', content: 'hi' }],
        }),
      ),
    );
    expect(answers.every((a) => a.type === 'message')).toBe(true);
    expect(sim.tokenRefreshes).toBe(1);
    const tokenCall = sim.requests('/v1/oauth/token')[0];
    expect(tokenCall.json).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: oldRefresh,
      client_id: expect.any(String),
    });
    const seen = new Set(sim.requests('/v1/messages').map((r) => r.headers.authorization));
    expect([...seen]).toEqual(['Bearer sk-ant-oat01-sim-1']);

    const written = JSON.parse(await readFile(path, 'utf8')) as {
      claudeAiOauth: Record<string, unknown>;
      otherTool: unknown;
    };
    expect(written.otherTool).toEqual({ keep: true });
    expect(written.claudeAiOauth).toMatchObject({
      accessToken: 'sk-ant-oat01-sim-1',
      refreshToken: 'sk-ant-ort01-sim-1',
      scopes: ['user:inference', 'user:profile'],
      subscriptionType: 'max',
    });
    expect(written.claudeAiOauth.expiresAt).toBeGreaterThan(Date.now() + 7 * 3_600_000);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // The refreshed token is not written to the log either.
    expect(p.logText()).not.toContain('sk-ant-oat01-sim-1');
    expect(p.logText()).not.toContain(oldRefresh);
  });

  it('answers 401 with the remedy and leaves the file untouched when the refresh fails', async () => {
    sim.knobs.refreshFail = true;
    const { path, proxy: p } = await withCredentials(Date.now() - 60_000);
    const before = await readFile(path);
    const res = await post(p);
    expect(res.status).toBe(401);
    const answer = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(answer).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    expect(answer.error.message).toContain('Log in with the CLI');
    expect(sim.requests('/v1/messages')).toHaveLength(0);
    expect((await readFile(path)).equals(before)).toBe(true);

    // The compatible route says the same in its own shape (docs/interface.md "Compatible errors").
    const compat = await post(
      p,
      '/api/v1/chat/completions',
      '{"model":"assistant-sonnet-4-20250514","messages":[{"role":"user","content":"hi"}]}',
    );
    expect(compat.status).toBe(401);
    expect(await compat.json()).toMatchObject({
      error: { code: 'invalid_api_key', message: expect.stringContaining('Log in with the CLI') },
    });
    expect((await readFile(path)).equals(before)).toBe(true);
  });

  it('refreshes once and retries when the provider refuses a token that had not expired yet', async () => {
    sim.knobs.acceptTokens = new Set(['sk-ant-oat01-only-new-tokens']);
    const { path, proxy: p } = await withCredentials(Date.now() + 3_600_000);
    await chmod(path, 0o640);
    const res = await post(p);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ type: 'message' });
    expect(sim.tokenRefreshes).toBe(1);
    const calls = sim.requests('/v1/messages').map((r) => r.headers.authorization);
    expect(calls).toEqual([`Bearer ${oldToken}`, 'Bearer sk-ant-oat01-sim-1']);
    expect((await stat(path)).mode & 0o777).toBe(0o640);

    // The next request uses the new token straight away.
    await (await post(p)).text();
    expect(sim.requests('/v1/messages').at(-1)?.headers.authorization).toBe('Bearer sk-ant-oat01-sim-1');
    expect(sim.tokenRefreshes).toBe(1);
  });

  it('refreshes once when many concurrent requests see the token refused', async () => {
    sim.knobs.acceptTokens = new Set(['sk-ant-oat01-only-new-tokens']);
    sim.knobs.refreshDelayMs = 100;
    const { proxy: p } = await withCredentials(Date.now() + 3_600_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(p)));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    await Promise.all(answers.map((a) => a.text()));
    expect(sim.tokenRefreshes).toBe(1);
  });

  it('gives up after one refresh when the provider keeps refusing', async () => {
    sim.knobs.failWith = { status: 401 };
    const { proxy: p } = await withCredentials(Date.now() + 3_600_000);
    const res = await post(p);
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('Log in with the CLI');
    expect(sim.requests('/v1/messages')).toHaveLength(2);
    expect(sim.tokenRefreshes).toBe(1);
  });

  it('answers 503 (not 401) when the token endpoint cannot be reached, leaving the file as it was', async () => {
    const path = await writeCliCredentials(dir, {
      accessToken: oldToken,
      refreshToken: oldRefresh,
      expiresAt: Date.now() - 1000,
    });
    const before = await readFile(path);
    proxy = await startProxy({
      apiBaseUrl: sim.url,
      credentialsPath: path,
      oauthTokenUrl: 'http://127.0.0.1:9/v1/oauth/token',
    });
    const res = await post(proxy);
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(
      /token endpoint is unreachable/,
    );
    expect((await readFile(path)).equals(before)).toBe(true);
  });

  it('replaces the proxy access key with the OAuth token instead of forwarding it', async () => {
    const key = 'my-proxy-access-key-0123456789';
    const path = await writeCliCredentials(dir, {
      accessToken: oldToken,
      refreshToken: oldRefresh,
      expiresAt: Date.now() + 3_600_000,
    });
    proxy = await startProxy({
      apiBaseUrl: sim.url,
      credentialsPath: path,
      oauthTokenUrl: sim.cliTokenUrl,
      accessKey: key,
    });
    const res = await fetch(`${proxy.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body,
    });
    expect(res.status).toBe(200);
    await res.text();
    const [seen] = sim.requests('/v1/messages');
    expect(seen.headers.authorization).toBe(`Bearer ${oldToken}`);
    expect(JSON.stringify(seen.headers)).not.toContain(key);
  });

  it('does not refresh or retry for a client-supplied real key', async () => {
    sim.knobs.failWith = { status: 401 };
    const { proxy: p } = await withCredentials(Date.now() - 60_000);
    const res = await fetch(`${p.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-api03-wrong-key-123456789' },
      body,
    });
    expect(res.status).toBe(401);
    expect(sim.tokenRefreshes).toBe(0);
    expect(sim.requests('/v1/messages')).toHaveLength(1);
  });
});
