// THROWAWAY: a request through the throwaway format (direct mode, the simulator) and the throwaway mode (compat).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

let sim: Simulator;
let proxy: TestProxy;
let dir: string;
beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'throwaway-'));
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: 'sk-ant-oat01-throwaway-abcdef123456',
    refreshToken: 'sk-ant-ort01-x-abcdef123456',
    expiresAt: Date.now() + 3_600_000,
  });
  proxy = await startProxy({ apiBaseUrl: sim.url, credentialsPath, oauthTokenUrl: sim.cliTokenUrl });
});
afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

it('the throwaway format answers through direct mode', async () => {
  const res = await fetch(`${proxy.url}/api/v1/plain`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'assistant-sonnet-4-20250514', prompt: 'hello' }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { text: string };
  expect(typeof body.text).toBe('string');
  expect(body.text.length).toBeGreaterThan(0);
  const bad = await fetch(`${proxy.url}/api/v1/plain`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('model');
});

it('the throwaway mode answers a compatible-format chat', async () => {
  const res = await fetch(`${proxy.url}/echo/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'ping' }] }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  expect(body.choices[0].message.content).toBe('echo: ping');
});
