// X-Proxy-Ignored-Params lists the body's unknown keys, which the client chooses: a key with an emoji or a control
// character still gives a valid header (never a 500), and thousands of unknown keys never make a header larger
// than HTTP clients accept (undici/fetch: UND_ERR_HEADERS_OVERFLOW), so the client always gets its answer.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ignoredParamsValue } from '../src/proxy/http/ignored-params.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { childEnv } from './helpers/tool-proxy.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, writeRespapiCredentials, type Simulator } from './simulator/index.js';

let sim: Simulator;
let cli: FakeCli;
let proxy: TestProxy;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'review-ignored-'));
  sim = await startSimulator();
  cli = await makeFakeCli({});
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: sim.mintCliAccessToken(),
    refreshToken: 'r',
    expiresAt: Date.now() + 3_600_000,
  });
  const respapiCredentialsPath = await writeRespapiCredentials(dir, {});
  proxy = await startProxy(
    {
      rateLimitPerMinute: 10_000,
      cliPath: cli.path,
      cliWorkDir: join(dir, 'wd'),
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      respapiBaseUrl: sim.respapiBaseUrl,
      respapiCredentialsPath,
      respapiOauthTokenUrl: sim.respapiTokenUrl,
    },
    { deps: { childEnv } },
  );
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await cli?.cleanup();
  await rm(dir, { recursive: true, force: true });
});

const native = { model: 'assistant-sonnet-4-20250514', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] };
const routes: Array<[string, Record<string, unknown>]> = [
  ['/v1/messages', native],
  ['/v1/chat/completions', native],
  ['/compat/v1/chat/completions', native],
  ['/api/v1/chat/completions', native],
  ['/respapi/responses', { model: 'rm-4', messages: native.messages }],
];

describe('X-Proxy-Ignored-Params with client-chosen key names', () => {
  it.each(routes)('%s answers 200 with a readable header for odd and many unknown keys', async (path, base) => {
    const extra: Record<string, number> = { 'emoji😀': 1, 'cr\r\nx-injected: 1': 1, 'nul\u0000': 1 };
    for (let i = 0; i < 3000; i++) extra[`extra_key_${i}`] = 1;
    const res = await fetch(proxy.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...base, ...extra }),
    });
    expect(res.status).toBe(200);
    const header = res.headers.get('x-proxy-ignored-params') ?? '';
    expect(header).toContain('emoji%F0%9F%98%80');
    expect(header).toContain('cr%0D%0Ax-injected:%201');
    expect(header.length).toBeLessThan(2048);
    expect(header).toMatch(/more\)$/);
    expect(res.headers.get('x-injected')).toBeNull();
    await res.text();
  });

  it('keeps ordinary names as they are', () => {
    expect(ignoredParamsValue(['temperature', 'top_p'])).toBe('temperature, top_p');
    expect(ignoredParamsValue([])).toBe('');
  });
});
