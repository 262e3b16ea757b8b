// Time to first token means the first content delta in every mode (docs/usage.md): in direct mode's compatible
// stream the role chunk goes out at message_start, before any content, and must not count as the first token.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecord, UsageSink } from '../src/proxy/usage/types.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const rows: UsageRecord[] = [];
const sink: UsageSink = { record: (r) => void rows.push(r), upstreamHeaders: () => undefined, cliRateLimit: () => undefined };
let sim: Simulator;
let proxy: TestProxy;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'ttft-'));
  const credentialsPath = await writeCliCredentials(dir, { accessToken: 'sk-ant-oat01-ttft-abcdef123456', refreshToken: 'sk-ant-ort01-ttft-abcdef123456', expiresAt: Date.now() + 3_600_000 });
  proxy = await startProxy({ apiBaseUrl: sim.url, credentialsPath, oauthTokenUrl: sim.cliTokenUrl, modes: ['direct'] }, { usage: sink });
});
afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('time to first token', () => {
  it('direct mode: counted from the first content delta, not the role chunk', async () => {
    // The first text delta comes this long after message_start (and so after the role chunk).
    sim.knobs.firstDeltaDelayMs = 250;
    const stream = await new OpenAI({ apiKey: 'dummy', baseURL: `${proxy.url}/api/v1`, maxRetries: 0 }).chat.completions.create({
      model: 'assistant-sonnet-4-20250514',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 100));
    const row = rows.find((r) => r.route === '/api/v1/chat/completions');
    expect(row?.outcome).toBe('ok');
    expect(row?.ttftMs).toBeGreaterThanOrEqual(250);
  });
});
