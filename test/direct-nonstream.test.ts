// Direct mode's compatible route for a client that does not stream (docs/direct-mode.md "`/api/v1/chat/completions`:
// DirectBackend"): a max_tokens within profile.api.nonStreamingMaxTokens asks the provider for one message, without
// `stream` when the provider's estimate of its time (max_tokens × profile.api.nonStreamingMsPerToken) fits the
// first-byte deadline, which then bounds the whole wait; any other is streamed upstream and collected. Both answer the same completion; the one-message answer's
// failures (a body that is not a message, the provider's error object, a cut or oversized body, the deadline) are
// errors in the compatible shape; a client that leaves frees the upstream request and is still recorded, and the
// ledger row carries the usage and the served model. The deadlines are made small here; nothing asserts speed.

import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UsageRecord, UsageSink } from '../src/proxy/usage/types.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const model = 'assistant-sonnet-4-20250514';
// undici keeps its header deadlines on a timer of about a second's resolution: deadlines of whole seconds, and
// waits that clear them by more than a second.
const firstByteMs = 1000;
/** Small, so that max_tokens up to 8,192 fit the 1 s first-byte deadline: the bound by tokens is what is tested. */
const msPerToken = 0.1;

const rows: UsageRecord[] = [];
const sink: UsageSink = {
  record: (r) => void rows.push(r),
  upstreamHeaders: () => undefined,
  cliRateLimit: () => undefined,
};
let sim: Simulator;
let proxy: TestProxy;
let dir: string;
let credentialsPath: string;

beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'direct-nonstream-'));
  credentialsPath = await writeCliCredentials(dir, {
    accessToken: 'sk-ant-oat01-nonstream-abcdef123456',
    refreshToken: 'sk-ant-ort01-nonstream-abcdef123456',
    expiresAt: Date.now() + 3_600_000,
  });
  proxy = await startProxy(
    {
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      modes: ['direct'],
      upstreamFirstByteTimeoutMs: firstByteMs,
      upstreamIdleTimeoutMs: 400,
    },
    { usage: sink, profile: { api: { nonStreamingMsPerToken: msPerToken } } },
  );
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => sim.reset());

function chat(
  url: string,
  body: Record<string, unknown>,
  init: { signal?: AbortSignal; requestId?: string } = {},
): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.requestId) headers['x-request-id'] = init.requestId;
  return fetch(`${url}/api/v1/chat/completions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Say hello' }], ...body }),
    signal: init.signal,
  });
}

async function rowOf(requestId: string): Promise<UsageRecord> {
  await expect.poll(() => rows.some((r) => r.requestId === requestId), { timeout: 3000 }).toBe(true);
  return rows.find((r) => r.requestId === requestId)!;
}

/** The parts of a completion that do not change from one answer to the next (not its id or time). */
function lasting(completion: Record<string, unknown>): unknown {
  const { id, created, ...rest } = completion;
  expect(id).toMatch(/^chatcmpl-/);
  expect(created).toEqual(expect.any(Number));
  return rest;
}

describe('a non-streaming compatible chat', () => {
  it('within the bound is asked as one message, and answers what the streamed-and-collected answer does', async () => {
    sim.knobs.replyText = 'one two three four five';
    const one = await chat(proxy.url, { max_tokens: 8192 });
    expect(one.status).toBe(200);
    const oneBody = (await one.json()) as Record<string, unknown>;
    const long = await chat(proxy.url, { max_tokens: 8193 });
    expect(long.status).toBe(200);
    const longBody = (await long.json()) as Record<string, unknown>;

    const [asked, streamed] = sim.requests('/v1/messages');
    expect(asked.json).toMatchObject({ max_tokens: 8192 });
    expect(asked.json).not.toHaveProperty('stream');
    expect(asked.headers.accept).not.toBe('text/event-stream');
    expect(streamed.json).toMatchObject({ max_tokens: 8193, stream: true });

    expect(lasting(oneBody)).toEqual(lasting(longBody));
    expect(oneBody).toMatchObject({
      object: 'chat.completion',
      model,
      choices: [{ message: { role: 'assistant', content: 'one two three four five' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 },
    });
  });

  it('names the usage, the served model and the first-token time in the ledger row', async () => {
    sim.knobs.replyText = 'three words here';
    sim.knobs.cacheTokens = { read: 7, write: 3 };
    const requestId = `req_nonstream_${Date.now()}`;
    const res = await chat(proxy.url, {}, { requestId });
    expect(res.status).toBe(200);
    await res.text();
    const row = await rowOf(requestId);
    expect(row).toMatchObject({
      outcome: 'ok',
      streamed: false,
      modelRequested: model,
      modelServed: model,
      route: '/api/v1/chat/completions',
    });
    expect(row.tokens).toMatchObject({ input: 2, output: 3, cacheRead: 7, cacheWrite: 3 });
    expect(row.ttftMs).toEqual(expect.any(Number));
    expect(sim.requests('/v1/messages')[0].json).not.toHaveProperty('stream');
  });

  it('answers 504 in the compatible shape at the first-byte deadline, and ends the upstream request', async () => {
    sim.knobs.latencyMs = firstByteMs + 3000;
    const res = await chat(proxy.url, {});
    expect(res.status).toBe(504);
    const body = (await res.json()) as { error: { message: string; type: string; code: string } };
    expect(body).toMatchObject({ error: { type: expect.any(String), code: expect.any(String) } });
    expect(body.error.message).toContain('UPSTREAM_FIRST_BYTE_TIMEOUT_MS');
    expect(sim.requests('/v1/messages')[0].json).not.toHaveProperty('stream');
    await expect.poll(() => sim.requests('/v1/messages')[0]?.aborted, { timeout: 3000 }).toBe(true);
  });

  it.each([
    ['is cut off', 'reset', 502],
    ['ends before it is whole', 'truncate', 502],
    ['stalls past the idle deadline', 'stall', 504],
    ['is the provider error object', 'error', 503],
  ] as const)('answers an error in the compatible shape when the message %s', async (_name, fault, status) => {
    sim.knobs.streamFault = fault;
    const res = await chat(proxy.url, {});
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message.length).toBeGreaterThan(0);
    expect(sim.requests('/v1/messages')[0].json).not.toHaveProperty('stream');
    await expect.poll(() => sim.openRequests(), { timeout: 3000 }).toBe(0);
  });

  it('frees the upstream request when the client leaves during the wait, and records the request', async () => {
    sim.knobs.latencyMs = 10_000;
    const requestId = `req_nonstream_gone_${Date.now()}`;
    const ac = new AbortController();
    const pending = chat(proxy.url, {}, { signal: ac.signal, requestId });
    await expect.poll(() => sim.requests('/v1/messages').length).toBe(1);
    ac.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => sim.requests('/v1/messages')[0].aborted, { timeout: 3000 }).toBe(true);
    expect((await rowOf(requestId)).outcome).toBe('client_gone');
  });

  it.each([
    ['asked as one message', 64],
    ['streamed upstream and collected', 20_000],
  ])('refreshes a refused token once and retries (%s)', async (_way, maxTokens) => {
    const tokens = await mkdtemp(join(dir, 'refused-'));
    const path = await writeCliCredentials(tokens, {
      accessToken: 'sk-ant-oat01-refused-abcdef123456',
      refreshToken: 'sk-ant-ort01-refused-abcdef123456',
      expiresAt: Date.now() + 3_600_000,
    });
    sim.knobs.acceptTokens = new Set(['sk-ant-oat01-only-new-tokens']);
    const p = await startProxy({
      apiBaseUrl: sim.url,
      credentialsPath: path,
      oauthTokenUrl: sim.cliTokenUrl,
      modes: ['direct'],
    });
    try {
      const res = await chat(p.url, { max_tokens: maxTokens });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(sim.tokenRefreshes).toBe(1);
      const calls = sim.requests('/v1/messages');
      expect(calls.map((r) => r.headers.authorization)).toEqual([
        'Bearer sk-ant-oat01-refused-abcdef123456',
        'Bearer sk-ant-oat01-sim-1',
      ]);
      expect(calls.map((r) => (r.json as { stream?: boolean }).stream)).toEqual(
        maxTokens > 8192 ? [true, true] : [undefined, undefined],
      );
    } finally {
      await p.close();
    }
  });
});

describe('a provider that answers a non-streamed request with something else than a message', () => {
  let upstream: Server;
  let p: TestProxy;
  let answer: (res: import('node:http').ServerResponse) => void = () => undefined;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => answer(res));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    p = await startProxy({
      apiBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
      modes: ['direct'],
    });
  });
  afterAll(async () => {
    await p?.close();
    upstream.closeAllConnections();
    await new Promise((r) => upstream.close(r));
  });

  const json = (body: string) => (res: import('node:http').ServerResponse) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };

  it.each([
    ['a body that is not JSON', json('<html>gateway</html>'), 502, /not JSON/],
    ['JSON that is not a message', json('{"type":"completion","completion":"hi"}'), 502, /instead of a message/],
    [
      'a message without a content list',
      json('{"type":"message","model":"m","content":"hi","usage":{}}'),
      502,
      /content/,
    ],
    [
      'the provider error object',
      json('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}'),
      429,
      /slow down/,
    ],
    [
      'a body larger than the bound',
      (res: import('node:http').ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(Buffer.alloc(17 * 1024 * 1024, 0x20));
      },
      502,
      /larger than/,
    ],
  ] as const)('%s: an error in the compatible shape', async (_name, send, status, message) => {
    answer = send;
    const res = await fetch(`${p.url}/api/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-api03-a-real-looking-key-0123456789' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(status);
    const body = (await res.json()) as { error: { message: string; type: string } };
    expect(body.error.message).toMatch(message);
    expect(body.error.type).toEqual(expect.any(String));
  });
});
