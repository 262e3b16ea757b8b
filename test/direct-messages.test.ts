// Direct mode's byte-level reverse proxy (/api/v1/messages) against the provider simulator, with the official
// native SDK as the client: OAuth injection from the credential file, merged feature flags, the body byte for
// byte, real keys forwarded, streams chunk by chunk, faithful errors, deadlines, client aborts, and no secrets in logs.

import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { readSse, startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const fileToken = 'sk-ant-oat01-from-file-abcdef123456';
const fileRefresh = 'sk-ant-ort01-from-file-abcdef123456';
const realKey = 'sk-ant-api03-real-key-abcdef1234567890';

let sim: Simulator;
let proxy: TestProxy;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'direct-messages-'));
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: fileToken,
    refreshToken: fileRefresh,
    expiresAt: Date.now() + 3_600_000,
  });
  proxy = await startProxy({
    apiBaseUrl: sim.url,
    credentialsPath,
    oauthTokenUrl: sim.cliTokenUrl,
    upstreamIdleTimeoutMs: 400,
    upstreamFirstByteTimeoutMs: 500,
  });
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => sim.reset());

function sdk(apiKey = 'dummy', headers: Record<string, string> = {}) {
  return new Anthropic({ apiKey, baseURL: `${proxy.url}/api`, maxRetries: 0, defaultHeaders: headers });
}

function post(body: string, headers: Record<string, string> = {}, path = '/api/v1/messages', signal?: AbortSignal) {
  return fetch(proxy.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
    signal,
  });
}

describe('POST /api/v1/messages with the native SDK', () => {
  it('injects the OAuth bearer from the credential file, merges feature flags and forwards the body untouched', async () => {
    const client = sdk('dummy-key', { 'anthropic-beta': 'my-feature-2025-01-01' });
    const message = await client.messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello there' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hi from the simulator!' });
    const [seen] = sim.requests('/v1/messages');
    expect(seen.headers.authorization).toBe(`Bearer ${fileToken}`);
    expect(seen.headers['x-api-key']).toBeUndefined();
    // The proxy does not present itself as the CLI (docs/direct-mode.md "Who the provider sees").
    expect(seen.headers['x-app']).toBeUndefined();
    expect(seen.headers['anthropic-beta'].split(',')).toEqual(['my-feature-2025-01-01', 'oauth-2025-04-20']);
    // The API version the SDK (1.x) names, passed on as sent.
    expect(seen.headers['anthropic-version']).toBe('2026-10-21');
    expect(seen.json).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'Hello there' }],
    });
  });

  it('passes the exact bytes of an odd-looking body and the query string', async () => {
    const body =
      '{ "max_tokens" :16,\n  "messages":[{"role":"user","content":"caf\\u00e9 ☕ 1.50"}],"temperature":1.0, "model":"claude-3-5-haiku-20241022"}';
    const res = await post(body, { 'x-api-key': 'whatever' }, '/api/v1/messages?beta=true');
    expect(res.status).toBe(200);
    await res.text();
    const [seen] = sim.requests('/v1/messages');
    expect(seen.body.toString('utf8')).toBe(body);
    expect(seen.query).toBe('beta=true');
  });

  it('maps a public (neutral) model id and nothing else in the body', async () => {
    const body =
      '{"model":"assistant-sonnet-4-20250514","max_tokens":8,"messages":[{"role":"user","content":"say \\"assistant-sonnet-4-20250514\\""}]}';
    const res = await post(body);
    expect(res.status).toBe(200);
    await res.text();
    const [seen] = sim.requests('/v1/messages');
    expect(seen.body.toString('utf8')).toBe(body.replace('"model":"assistant-sonnet', '"model":"claude-sonnet'));
  });

  it('forwards a real provider key as sent instead of the OAuth token', async () => {
    const message = await sdk(realKey).messages.create({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 8,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(message.type).toBe('message');
    // The SDK (1.x) sends its key as a bearer token.
    const [seen] = sim.requests('/v1/messages');
    expect(seen.headers.authorization).toBe(`Bearer ${realKey}`);
    expect(seen.headers['x-api-key']).toBeUndefined();
    expect(seen.headers['anthropic-beta']).toBeUndefined();

    // Older SDKs and curl send it as x-api-key: passed on the same way.
    const res = await post('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]}', {
      'x-api-key': realKey,
    });
    await res.text();
    const second = sim.requests('/v1/messages')[1];
    expect(second.headers['x-api-key']).toBe(realKey);
    expect(second.headers.authorization).toBeUndefined();
  });

  it('drops hop-by-hop and browser headers and keeps the rest', async () => {
    // fetch refuses to set Connection, so this one goes through node:http.
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${proxy.url}/api/v1/messages`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          connection: 'keep-alive, x-hop',
          'x-hop': 'gone',
          cookie: 'session=abc',
          'x-custom-client': 'kept',
        },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]}');
    });
    expect(status).toBe(200);
    const [seen] = sim.requests('/v1/messages');
    expect(seen.headers['x-hop']).toBeUndefined();
    expect(seen.headers.cookie).toBeUndefined();
    expect(seen.headers['x-custom-client']).toBe('kept');
  });

  it("drops hop-by-hop headers of the provider's answer, and those its Connection names (the one list)", async () => {
    const sent: Record<string, string> = {
      connection: 'keep-alive, x-sim-hop',
      'x-sim-hop': 'gone',
      'keep-alive': 'timeout=5',
      'proxy-authenticate': 'Basic',
      'proxy-connection': 'keep-alive',
      te: 'trailers',
      'set-cookie': 'edge=1',
      'x-sim-kept': 'kept',
    };
    sim.knobs.quotaHeaders = sent;
    const res = await post('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]}');
    expect(res.status).toBe(200);
    await res.text();
    // The proxy's own connection has headers of these names (Connection, Keep-Alive): never the provider's values.
    for (const [name, value] of Object.entries(sent).filter(([n]) => n !== 'x-sim-kept'))
      expect(res.headers.get(name) ?? '', name).not.toContain(value);
    expect(res.headers.get('x-sim-kept')).toBe('kept');
  });

  it('streams chunk by chunk: events arrive in separate reads before the end', async () => {
    sim.knobs.chunkIntervalMs = 30;
    sim.knobs.replyText = 'one two three four five six';
    const res = await post(
      '{"model":"claude-sonnet-4-20250514","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"count"}]}',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const events = await readSse(res);
    const deltas = events.filter((e) => e.event === 'content_block_delta');
    expect(deltas).toHaveLength(6);
    expect(new Set(deltas.map((d) => d.read)).size).toBeGreaterThan(3);
    expect(events.at(-1)?.event).toBe('message_stop');
  });

  it('works with the SDK streaming helper', async () => {
    sim.knobs.replyText = 'streamed through the proxy';
    const stream = sdk().messages.stream({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const texts: string[] = [];
    stream.on('text', (t) => texts.push(t));
    const final = await stream.finalMessage();
    expect(texts.join('')).toBe('streamed through the proxy');
    expect(texts.length).toBeGreaterThan(1);
    expect(final.stop_reason).toBe('end_turn');
  });

  it('returns the provider 429 with Retry-After and rate-limit headers as they are', async () => {
    sim.knobs.failWith = { status: 429, retryAfter: 7 };
    const res = await post('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]}');
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
  });

  it('returns the provider 529 as it is (the native SDK knows it)', async () => {
    sim.knobs.failWith = { status: 529 };
    const err = await sdk()
      .messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(529);
  });

  it('ends a stalled stream with an error event in the native shape', async () => {
    sim.knobs.streamFault = 'stall';
    sim.knobs.replyText = 'a b c d e f';
    const res = await post('{"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"x"}]}');
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.filter((e) => e.event === 'content_block_delta').length).toBeGreaterThan(0);
    const last = events.at(-1);
    expect(last?.event).toBe('error');
    expect(last?.json).toMatchObject({
      type: 'error',
      error: { type: 'timeout_error', message: expect.stringContaining('UPSTREAM_IDLE_TIMEOUT_MS') },
    });
  });

  it('the SDK raises a stalled stream as an error', async () => {
    sim.knobs.streamFault = 'stall';
    const stream = sdk().messages.stream({ model: 'm', max_tokens: 64, messages: [{ role: 'user', content: 'x' }] });
    await expect(stream.finalMessage()).rejects.toThrow(/stalled/);
  });

  it('answers 504 in the native shape when the provider does not start answering in time', async () => {
    sim.knobs.latencyMs = 5000;
    const res = await post('{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]}');
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'timeout_error', message: expect.stringContaining('UPSTREAM_FIRST_BYTE_TIMEOUT_MS') },
    });
    await expect.poll(() => sim.requests('/v1/messages')[0]?.aborted, { timeout: 3000 }).toBe(true);
  });

  it('records model, stream, usage and time to first byte for metrics', async () => {
    sim.knobs.replyText = 'three words here';
    const before = proxy.proxy.services.metrics.recentRequests().length;
    const res = await post(
      '{"model":"claude-sonnet-4-20250514","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"one two"}]}',
    );
    await res.text();
    const json = await post(
      '{"model":"claude-sonnet-4-20250514","max_tokens":64,"messages":[{"role":"user","content":"one two"}]}',
    );
    await json.text();
    expect(proxy.proxy.services.metrics.recentRequests().length).toBe(before + 2);
    const [plain, streamed] = proxy.proxy.services.metrics.recentRequests();
    expect(streamed).toMatchObject({
      mode: 'direct',
      model: 'claude-sonnet-4-20250514',
      stream: true,
      inputTokens: 2,
      outputTokens: 3,
      ttftMs: expect.any(Number),
    });
    expect(plain).toMatchObject({ stream: false, inputTokens: 2, outputTokens: 3 });
  });

  it('aborts the upstream request when the client goes away', async () => {
    sim.knobs.chunkIntervalMs = 200;
    sim.knobs.replyText = 'a b c d e f g h i j';
    const abort = new AbortController();
    const res = await post(
      '{"model":"m","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"x"}]}',
      {},
      '/api/v1/messages',
      abort.signal,
    );
    const reader = res.body!.getReader();
    await reader.read();
    abort.abort();
    await expect.poll(() => sim.requests('/v1/messages')[0]?.aborted, { timeout: 3000 }).toBe(true);
  });

  it('answers a chunked non-streamed answer whole, with a content-length, and records its usage', async () => {
    sim.knobs.jsonChunks = 3;
    sim.knobs.replyText = 'three words here';
    const before = proxy.proxy.services.metrics.recentRequests().length;
    const res = await post(
      '{"model":"claude-sonnet-4-20250514","max_tokens":64,"messages":[{"role":"user","content":"one two"}]}',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('transfer-encoding')).toBeNull();
    const text = await res.text();
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
    expect(JSON.parse(text)).toMatchObject({
      type: 'message',
      content: [{ type: 'text', text: 'three words here' }],
      usage: { input_tokens: 2, output_tokens: 3 },
    });
    expect(res.headers.get('request-id')).toMatch(/^req_sim_/);
    await expect.poll(() => proxy.proxy.services.metrics.recentRequests().length).toBe(before + 1);
    expect(proxy.proxy.services.metrics.recentRequests()[0]).toMatchObject({
      mode: 'direct',
      stream: false,
      inputTokens: 2,
      outputTokens: 3,
      status: 200,
    });
  });

  it('streams a chunked non-streamed answer longer than the bound through, byte for byte', async () => {
    sim.knobs.jsonChunks = 4;
    sim.knobs.chunkCount = 1;
    sim.knobs.replyText = 'abcdefghi '.repeat(120_000); // 1.2 MB, past the 1 MiB read whole
    const res = await post(
      '{"model":"claude-sonnet-4-20250514","max_tokens":64,"messages":[{"role":"user","content":"x"}]}',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBeNull();
    const body = (await res.json()) as { content: Array<{ text: string }> };
    expect(body.content[0].text).toBe(sim.knobs.replyText);
  });

  it('answers 502 in the native shape when the provider breaks off a chunked answer', async () => {
    sim.knobs.jsonChunks = 4;
    sim.knobs.streamFault = 'reset';
    const res = await post(
      '{"model":"claude-sonnet-4-20250514","max_tokens":64,"messages":[{"role":"user","content":"x"}]}',
    );
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('answers 504 when a chunked answer stalls past the idle deadline', async () => {
    sim.knobs.jsonChunks = 2;
    sim.knobs.chunkIntervalMs = 1500;
    const res = await post('{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"x"}]}');
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'timeout_error', message: expect.stringContaining('UPSTREAM_IDLE_TIMEOUT_MS') },
    });
  });

  it('aborts the upstream request when the client leaves while a chunked answer is read', async () => {
    sim.knobs.jsonChunks = 4;
    sim.knobs.chunkIntervalMs = 300;
    const abort = new AbortController();
    const pending = post(
      '{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"x"}]}',
      {},
      '/api/v1/messages',
      abort.signal,
    );
    await expect.poll(() => sim.requests('/v1/messages').length).toBe(1);
    setTimeout(() => abort.abort(), 350);
    await expect(pending).rejects.toThrow();
    await expect.poll(() => sim.requests('/v1/messages')[0]?.aborted, { timeout: 3000 }).toBe(true);
    expect(sim.openRequests()).toBe(0);
  });

  it('answers 400 in the native shape for a body that is not JSON', async () => {
    const res = await post('{not json');
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(sim.requests('/v1/messages')).toHaveLength(0);
  });

  it('forwards count_tokens and lists the model catalog read through the CLI login', async () => {
    await proxy.proxy.catalog.refresh();
    const models = await sdk().models.list();
    expect(models.data.map((m) => m.id)).toContain('assistant-sonnet-4-6');
    expect(models.data.map((m) => m.id)).toContain('assistant-sonnet-4-7');
    expect(models.data.map((m) => m.id)).not.toContain('claude-sonnet-4-20250514');
    expect(sim.requests('/v1/models')[0].headers.authorization).toBe(`Bearer ${fileToken}`);
    const res = await post(
      '{"model":"m","messages":[{"role":"user","content":"x"}]}',
      {},
      '/api/v1/messages/count_tokens',
    );
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ input_tokens: 1 });
    expect(sim.requests('/v1/messages/count_tokens')[0].headers.authorization).toBe(`Bearer ${fileToken}`);
  });

  it('never writes the token, the refresh token or a real key to the log', async () => {
    await sdk(realKey).messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] });
    await sdk().messages.create({ model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }] });
    const text = proxy.logText();
    expect(text).toContain('"route":"/api/v1/messages"');
    for (const secret of [fileToken, fileRefresh, realKey]) expect(text).not.toContain(secret);
  });
});

describe('POST /api/v1/messages without credentials', () => {
  it('answers 401 in the native shape with the remedy', async () => {
    const p = await startProxy({
      apiBaseUrl: sim.url,
      credentialsPath: join(dir, 'missing.json'),
      oauthTokenUrl: sim.cliTokenUrl,
    });
    try {
      const res = await fetch(`${p.url}/api/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'dummy' },
        body: '{"model":"m","max_tokens":1,"messages":[{"role":"user","content":"x"}]}',
      });
      expect(res.status).toBe(401);
      const body = (await res.json()) as { type: string; error: { type: string; message: string } };
      expect(body.type).toBe('error');
      expect(body.error.type).toBe('authentication_error');
      expect(body.error.message).toMatch(/log in/i);
      expect(sim.requests('/v1/messages')).toHaveLength(0);
    } finally {
      await p.close();
    }
  });
});
