// What one answer leaves in the usage ledger is the same through every route and mode (docs/usage.md,
// docs/architecture.md "The observer of a chat"): the first-token time counts from the first content delta (never
// the role chunk, never the first byte), the usage keeps its cache tokens, and the served model is named in the
// neutral naming. The same simulated answer, its first content delta 300 ms after message_start, goes through the
// byte-level forwarder, the translated direct route, both tool-mode formats and the response-API relay; a model
// alias (MODEL_ALIASES) is resolved in every mode on the way. Times are only checked to be no earlier than the
// delay: tests never assert speed.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecord, UsageSink } from '../src/proxy/usage/types.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { childEnv } from './helpers/tool-proxy.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, writeRespapiCredentials, type Simulator } from './simulator/index.js';

const delayMs = 300;
const cache = { read: 7, write: 3 };
const alias = 'gpt-4o';
const aliasTarget = 'assistant-sonnet-4-20250514';
const providerId = 'claude-sonnet-4-20250514';

const rows: UsageRecord[] = [];
const sink: UsageSink = {
  record: (r) => void rows.push(r),
  upstreamHeaders: () => undefined,
  cliRateLimit: () => undefined,
};
let sim: Simulator;
let direct: TestProxy;
let tool: TestProxy;
let cli: FakeCli;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  sim.knobs.firstDeltaDelayMs = delayMs;
  sim.knobs.cacheTokens = cache;
  dir = await mkdtemp(join(tmpdir(), 'chat-facts-'));
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: 'sk-ant-oat01-facts-abcdef123456',
    refreshToken: 'sk-ant-ort01-facts-abcdef123456',
    expiresAt: Date.now() + 3_600_000,
  });
  const respapiCredentialsPath = await writeRespapiCredentials(dir);
  const aliases = [`${alias}=${aliasTarget}`];
  direct = await startProxy(
    {
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      respapiBaseUrl: sim.respapiBaseUrl,
      respapiCredentialsPath,
      respapiOauthTokenUrl: sim.respapiTokenUrl,
      modes: ['direct', 'respapi'],
      modelAliases: aliases,
      rateLimitPerMinute: 10_000,
    },
    { usage: sink },
  );
  cli = await makeFakeCli({
    env: { FAKE_CLI_FIRST_TOKEN_DELAY_MS: String(delayMs), FAKE_CLI_CACHE_TOKENS: `${cache.read},${cache.write}` },
  });
  tool = await startProxy(
    {
      cliPath: cli.path,
      cliWorkDir: join(dir, 'work'),
      modes: ['tool'],
      modelAliases: aliases,
      rateLimitPerMinute: 10_000,
    },
    { usage: sink, deps: { childEnv } },
  );
});
afterAll(async () => {
  await tool?.close();
  await direct?.close();
  await cli?.cleanup();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

async function streamed(url: string, body: Record<string, unknown>): Promise<UsageRecord> {
  const requestId = `req_facts_${rows.length}_${Math.random().toString(36).slice(2)}`;
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': requestId },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text.length).toBeGreaterThan(0);
  for (let i = 0; i < 50 && !rows.some((r) => r.requestId === requestId); i++)
    await new Promise((r) => setTimeout(r, 20));
  const row = rows.find((r) => r.requestId === requestId);
  expect(row).toBeDefined();
  return row!;
}

const native = { model: alias, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] };
const compat = { model: alias, messages: [{ role: 'user', content: 'hi' }] };

describe('the facts of one answer, through every route', () => {
  it.each([
    ['direct, byte-level forwarder', () => `${direct.url}/api/v1/messages`, native],
    ['direct, /api/messages', () => `${direct.url}/api/messages`, native],
    ['direct, translated compatible route', () => `${direct.url}/api/v1/chat/completions`, compat],
    ['tool, native messages', () => `${tool.url}/v1/messages`, native],
    ['tool, root /messages', () => `${tool.url}/messages`, native],
    ['tool, compatible format', () => `${tool.url}/compat/v1/chat/completions`, compat],
  ])('%s: first content delta, cache tokens, served model, alias resolved', async (_name, url, body) => {
    const row = await streamed(url(), body);
    expect(row.outcome).toBe('ok');
    expect(row.ttftMs).toBeGreaterThanOrEqual(delayMs);
    expect(row.tokens.cacheRead).toBe(cache.read);
    expect(row.tokens.cacheWrite).toBe(cache.write);
    expect(row.modelRequested).toBe(alias);
    expect(row.modelServed).toBe(aliasTarget);
  });

  it('direct mode sends an alias to the provider as the model it stands for', () => {
    const models = sim.requests('/v1/messages').map((r) => (r.json as { model?: string }).model);
    expect(models.length).toBeGreaterThanOrEqual(3);
    expect(new Set(models)).toEqual(new Set([providerId]));
  });

  it('response-API relay: first content delta, cached tokens, served model in the neutral naming', async () => {
    const row = await streamed(`${direct.url}/respapi/responses`, { model: 'rm-4', input: 'hi' });
    expect(row.outcome).toBe('ok');
    expect(row.ttftMs).toBeGreaterThanOrEqual(delayMs);
    expect(row.tokens.cacheRead).toBe(cache.read);
    expect(row.modelServed).toBe('rm-4');
  });
});
