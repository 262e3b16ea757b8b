// The HTTP plumbing every mode stands on: request ids, JSON-only bodies, size limits, 404/405, error shapes
// per route family (docs/interface.md "Errors"), host guard, CORS, rate limit ("Limits"), access key, metrics.

import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';

let proxy: TestProxy | undefined;
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

/** A raw request, so tests control the Host header and see every response header. */
function raw(
  url: string,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string | Buffer },
) {
  const u = new URL(url);
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: string;
    json: () => any;
  }>((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) });
        });
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

const json = { 'content-type': 'application/json' };

describe('request plumbing', () => {
  it('echoes a sane x-request-id and mints one otherwise', async () => {
    proxy = await startProxy({ modes: [] });
    const given = await raw(proxy.url, { path: '/v1/models', headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers['x-request-id']).toBe('abc-123');
    const minted = await raw(proxy.url, { path: '/v1/models', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(minted.headers['x-request-id']).toMatch(/^req_[0-9a-f]{32}$/);
    // Native routes also answer `request-id`, the header the native SDK reads.
    expect(minted.headers['request-id']).toBe(minted.headers['x-request-id']);
    expect((await raw(proxy.url, { path: '/compat/v1/models' })).headers['request-id']).toBeUndefined();
  });

  it('answers unknown paths 404 and wrong methods 405, each in its family shape', async () => {
    proxy = await startProxy();
    const native = await raw(proxy.url, { path: '/v1/nothing' });
    expect(native.status).toBe(404);
    expect(native.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    const compat = await raw(proxy.url, { path: '/compat/v1/embeddings', method: 'POST', headers: json, body: '{}' });
    expect(compat.status).toBe(404);
    expect(compat.json().error).toMatchObject({ code: 'not_found', type: 'invalid_request_error' });
    const general = await raw(proxy.url, { path: '/nothing' });
    expect(general.status).toBe(404);
    expect(general.json().error.type).toBe('not_found');
    const wrong = await raw(proxy.url, { path: '/v1/models', method: 'DELETE' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toContain('GET');
  });

  it('accepts only JSON bodies: 415, 400 for malformed JSON with details, 413 past the limit', async () => {
    proxy = await startProxy({ bodyLimitBytes: 2048 });
    const text = await raw(proxy.url, {
      path: '/v1/messages',
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hi',
    });
    expect(text.status).toBe(415);
    expect(text.json().error).toMatchObject({ type: 'invalid_request_error', details: { field: 'content-type' } });
    const bad = await raw(proxy.url, { path: '/v1/messages', method: 'POST', headers: json, body: '{"model": ' });
    expect(bad.status).toBe(400);
    expect(bad.json().error).toMatchObject({
      type: 'invalid_request_error',
      details: { field: 'body', issue: 'malformed JSON' },
    });
    const badCompat = await raw(proxy.url, {
      path: '/compat/v1/chat/completions',
      method: 'POST',
      headers: json,
      body: '[1,',
    });
    expect(badCompat.status).toBe(400);
    expect(badCompat.json().error).toMatchObject({ code: 'invalid_request_error', param: 'body' });
    const big = await raw(proxy.url, {
      path: '/v1/messages',
      method: 'POST',
      headers: json,
      body: JSON.stringify({ pad: 'x'.repeat(5000) }),
    });
    expect(big.status).toBe(413);
  });

  it('turns a mode off with a 404 that names the setting', async () => {
    proxy = await startProxy({ modes: ['tool'] });
    const res = await raw(proxy.url, { path: '/api/v1/messages', method: 'POST', headers: json, body: '{}' });
    expect(res.status).toBe(404);
    expect(res.json().error.message).toMatch(/direct mode is off.*MODES/);
  });
});

describe('local-server safety', () => {
  it('refuses a foreign Host header (DNS rebinding) and accepts loopback names', async () => {
    proxy = await startProxy();
    const evil = await raw(proxy.url, { path: '/health', headers: { host: 'attacker.example' } });
    expect(evil.status).toBe(403);
    expect(evil.json().error.message).toMatch(/attacker\.example/);
    for (const host of [`localhost:${proxy.port}`, `127.0.0.1:${proxy.port}`, `[::1]:${proxy.port}`]) {
      const ok = await raw(proxy.url, { path: '/v1/models', headers: { host } });
      expect(ok.status, host).toBe(200);
    }
  });

  it('accepts configured extra host names', async () => {
    proxy = await startProxy({ allowedHosts: ['devbox.local'] });
    expect((await raw(proxy.url, { path: '/v1/models', headers: { host: 'devbox.local:8000' } })).status).toBe(200);
  });

  it('sends no CORS headers by default and refuses preflights', async () => {
    proxy = await startProxy();
    const res = await raw(proxy.url, { path: '/v1/models', headers: { origin: 'http://evil.test' } });
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const pre = await raw(proxy.url, {
      path: '/v1/messages',
      method: 'OPTIONS',
      headers: { origin: 'http://evil.test', 'access-control-request-method': 'POST' },
    });
    expect(pre.status).toBe(403);
  });

  it('echoes only allow-listed origins when CORS is on, never *', async () => {
    proxy = await startProxy({ corsOrigins: ['http://localhost:3000'] });
    const pre = await raw(proxy.url, {
      path: '/v1/messages',
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:3000',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-api-key',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(pre.headers['access-control-allow-headers']).toBe('content-type, x-api-key');
    const get = await raw(proxy.url, { path: '/v1/models', headers: { origin: 'http://localhost:3000' } });
    expect(get.headers['access-control-allow-origin']).toBe('http://localhost:3000');
    expect(get.headers.vary).toMatch(/Origin/);
    const other = await raw(proxy.url, { path: '/v1/models', headers: { origin: 'http://other.test' } });
    expect(other.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('requires the access key beyond loopback, as the API key a client sends anyway', async () => {
    const key = 'a-long-access-key-0123456789';
    // Bind loopback but with the LAN rule switched on through a non-loopback-looking alias is not possible
    // here, so bind all interfaces of this machine's loopback range only through 127.0.0.2.
    proxy = await startProxy({ host: '0.0.0.0', accessKey: key });
    const url = `http://127.0.0.1:${proxy.port}`;
    const none = await raw(url, { path: '/v1/models' });
    expect(none.status).toBe(401);
    expect(none.json().error.type).toBe('authentication_error');
    expect((await raw(url, { path: '/v1/models', headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await raw(url, { path: '/v1/models', headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await raw(url, { path: '/v1/models', headers: { 'x-api-key': 'wrong' } })).status).toBe(401);
    expect((await raw(url, { path: '/health' })).status).not.toBe(401);
    expect(proxy.logText()).not.toContain(key);
  });
});

describe('rate limit (docs/interface.md "Limits")', () => {
  it('lets 70 requests through in a minute and answers the 71st with 429 and Retry-After, per format', async () => {
    proxy = await startProxy();
    const statuses: number[] = [];
    let last;
    for (let i = 0; i < 70; i++) {
      last = await raw(proxy.url, { path: i % 2 ? '/v1/models' : '/compat/v1/models' });
      statuses.push(last.status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(last!.headers['x-ratelimit-limit']).toBe('70');
    expect(last!.headers['x-ratelimit-remaining']).toBe('0');
    expect(Number(last!.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
    const native = await raw(proxy.url, { path: '/v1/models' });
    expect(native.status).toBe(429);
    expect(Number(native.headers['retry-after'])).toBeGreaterThan(0);
    expect(native.json()).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    const compat = await raw(proxy.url, { path: '/compat/v1/models' });
    expect(compat.status).toBe(429);
    expect(compat.json().error.code).toBe('rate_limit_exceeded');
    // Health and metrics are never limited.
    expect((await raw(proxy.url, { path: '/metrics' })).status).toBe(200);
    expect([200, 503]).toContain((await raw(proxy.url, { path: '/health' })).status);
  });

  it('counts each client IP on its own budget', async () => {
    proxy = await startProxy({ rateLimitPerMinute: 2, rateLimitBurst: 0 });
    expect((await raw(proxy.url, { path: '/v1/models' })).status).toBe(200);
    expect((await raw(proxy.url, { path: '/v1/models' })).status).toBe(200);
    expect((await raw(proxy.url, { path: '/v1/models' })).status).toBe(429);
  });
});

describe('metrics', () => {
  it('serves the four interface metrics plus TTFT and in-flight, with labels', async () => {
    proxy = await startProxy();
    await raw(proxy.url, { path: '/v1/models' });
    await raw(proxy.url, { path: '/v1/nothing' });
    const res = await raw(proxy.url, { path: '/metrics' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/text\/plain/);
    for (const name of [
      'assistant_proxy_requests_total',
      'assistant_proxy_request_duration_seconds',
      'assistant_proxy_errors_total',
      'assistant_proxy_cli_status',
      'assistant_proxy_time_to_first_token_seconds',
      'assistant_proxy_requests_in_flight',
    ]) {
      expect(res.body).toContain(`# TYPE ${name}`);
    }
    expect(res.body).toMatch(/assistant_proxy_requests_total\{mode="none",route="\/v1\/models",status="200"\} 1/);
    expect(res.body).toMatch(/assistant_proxy_errors_total\{mode="none",route="unmatched",type="not_found_error"\} 1/);
  });

  it('is 404 when monitoring is off', async () => {
    proxy = await startProxy({ metricsEnabled: false });
    const res = await raw(proxy.url, { path: '/metrics' });
    expect(res.status).toBe(404);
    expect(res.json().error.message).toMatch(/METRICS_ENABLED/);
  });
});

describe('logs', () => {
  it('write one structured line per request with the request id, and redact credentials', async () => {
    proxy = await startProxy();
    const secret = 'sk-ant-api03-secretsecretsecret';
    await raw(proxy.url, {
      path: '/v1/models',
      headers: { 'x-request-id': 'log-test-1', authorization: `Bearer ${secret}`, 'x-api-key': secret },
    });
    const line = proxy.logs().find((l) => l.requestId === 'log-test-1');
    expect(line).toMatchObject({ msg: 'request', route: '/v1/models', status: 200, method: 'GET' });
    expect(proxy.logText()).not.toContain(secret);
  });
});
