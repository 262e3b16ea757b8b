// What a local user (another account on the machine, a hostile local process) and a browser's marked requests
// could do, each attack of docs/security.md run against a real proxy on 127.0.0.1 (the browser-borne ones are run
// again with real Chromium in security.browser.test.ts):
// - requests a browser marks as another origin's are refused before any work, without a ledger row, without
//   drawing on the rate limit local clients share, and counted in a metric; non-browser clients are unaffected; a
//   flood of them is one warn line a minute per source;
// - PROXY_ACCESS_KEY, when set, is required on loopback too, except for basic /health and GET /;
// - captured bodies (CAPTURE_BODIES) keep no key or token of any common shape, nor the access key;
// - connection caps close extra connections with one log line; a connection that never sends its head is closed;
// - two Host headers, or none, are refused; every answer carries X-Content-Type-Options: nosniff, node's own
//   refusals of malformed requests included;
// - a client's system prompt never appears on a CLI child's command line (readable by every local user).

import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../src/proxy/logger.js';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A raw request, so the test controls every header (Host, Origin, Sec-Fetch-*) and sees every answer header. */
function raw(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string>; body?: string },
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** Bytes written as they are (two Host headers cannot be sent through node's client). */
function rawBytes(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let out = '';
    socket.on('data', (d: Buffer) => {
      out += d.toString('utf8');
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(out));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

async function provider(): Promise<{ sim: Simulator; settings: Record<string, unknown> }> {
  const sim = await startSimulator();
  cleanups.push(() => sim.close());
  const dir = mkdtempSync(join(tmpdir(), 'security-local-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  // An expired token: a request that reached the provider path would also force a refresh.
  const credentialsPath = await writeCliCredentials(join(dir, 'cli'), {
    accessToken: 'sk-ant-oat01-security-local-token-0123456789',
    refreshToken: 'sk-ant-ort01-security-local-refresh-0123456789',
    expiresAt: Date.now() - 60_000,
  });
  return {
    sim,
    settings: { apiBaseUrl: sim.url, credentialsPath, oauthTokenUrl: sim.cliTokenUrl, dataDir: join(dir, 'data') },
  };
}

function ledger(captureBodies = false): UsageLedger {
  const dir = mkdtempSync(join(tmpdir(), 'security-ledger-'));
  const l = UsageLedger.open({
    dataDir: dir,
    retentionDays: 36_500,
    maxMb: 64,
    captureBodies,
    logger: createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() })),
  });
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanups.push(() => l.close());
  return l;
}

async function started(p: Promise<TestProxy>): Promise<TestProxy> {
  const proxy = await p;
  cleanups.push(() => proxy.close());
  return proxy;
}

const chat = JSON.stringify({
  model: 'assistant-sonnet-4-20250514',
  max_tokens: 16,
  messages: [{ role: 'user', content: 'hi' }],
});

describe('requests a browser marks as from another origin', () => {
  it('are refused before any work: no provider call, no token refresh, no CLI start, no ledger row, no rate-limit draw', async () => {
    const { sim, settings } = await provider();
    const fake: FakeCli = await makeFakeCli();
    cleanups.push(() => fake.cleanup());
    const usage = ledger();
    const proxy = await started(
      startProxy(
        { ...settings, cliPath: fake.path, modes: ['tool', 'direct'], rateLimitPerMinute: 60, rateLimitBurst: 10 },
        { usage },
      ),
    );
    const page = 'http://127.0.0.1:3000';
    const attacks: Array<{ method: string; path: string; headers: Record<string, string>; body?: string }> = [
      // <img src=".../api/v1/models">: no Origin on a no-cors GET, only Sec-Fetch-Site.
      {
        method: 'GET',
        path: '/api/v1/models',
        headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' },
      },
      // The same from another port of localhost: same-site, yet another origin.
      { method: 'GET', path: '/api/models', headers: { 'sec-fetch-site': 'same-site', 'sec-fetch-mode': 'no-cors' } },
      // fetch(..., { mode: 'no-cors', method: 'POST', body: text }) and a form post.
      {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { origin: page, 'sec-fetch-site': 'same-site', 'content-type': 'text/plain' },
        body: chat,
      },
      {
        method: 'POST',
        path: '/api/v1/messages',
        headers: {
          origin: 'https://evil.test',
          'sec-fetch-site': 'cross-site',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'a=1',
      },
      // A sandboxed frame or a file: page sends Origin: null.
      {
        method: 'POST',
        path: '/compat/v1/chat/completions',
        headers: { origin: 'null', 'content-type': 'text/plain' },
        body: chat,
      },
      // Reading data: usage, metrics, detailed health.
      { method: 'GET', path: '/usage/requests', headers: { 'sec-fetch-site': 'cross-site' } },
      { method: 'GET', path: '/health/detailed', headers: { origin: page, 'sec-fetch-site': 'same-site' } },
    ];
    for (let round = 0; round < 12; round++) {
      for (const a of attacks) {
        const res = await raw(proxy.port, a);
        expect(res.status, `${a.method} ${a.path}`).toBe(403);
        expect(res.headers['access-control-allow-origin']).toBeUndefined();
      }
    }
    // The family's error shape (docs/interface.md "Errors").
    const compat = JSON.parse((await raw(proxy.port, attacks[4])).body) as { error: { code: string; type: string } };
    expect(compat.error).toMatchObject({ code: 'insufficient_quota', type: 'permission_error' });
    const native = JSON.parse((await raw(proxy.port, attacks[3])).body) as { type: string; error: { type: string } };
    expect(native).toMatchObject({ type: 'error', error: { type: 'permission_error' } });

    expect(sim.requests()).toEqual([]);
    expect(sim.tokenRefreshes).toBe(0);
    // The health probe runs `--version` and `auth status`; no chat run was started.
    expect((await fake.records()).filter((r) => !r.argv.includes('--version') && !r.argv.includes('auth'))).toEqual([]);
    usage.flush();
    expect(usage.requests().rows).toEqual([]);
    // 86 refused requests, and a local client still has its whole minute.
    const local = await raw(proxy.port, { path: '/v1/models' });
    expect(local.status).toBe(200);
    expect(local.headers['x-ratelimit-remaining']).toBe('69');
    const metrics = await raw(proxy.port, { path: '/metrics' });
    expect(metrics.body).toMatch(/assistant_proxy_refused_requests_total\{reason="cross-site"\} (\d+)/);
    const counted = [
      ...metrics.body.matchAll(/assistant_proxy_refused_requests_total\{reason="[a-z-]+"\} (\d+)/g),
    ].reduce((n, m) => n + Number(m[1]), 0);
    expect(counted).toBe(12 * attacks.length + 2);
  });

  it('lets non-browser clients, the proxy own origin, CORS_ORIGINS and basic /health through', async () => {
    const fake = await makeFakeCli();
    cleanups.push(() => fake.cleanup());
    const proxy = await started(
      startProxy({ modes: ['tool'], cliPath: fake.path, corsOrigins: ['http://localhost:5173'] }),
    );
    expect((await raw(proxy.port, { path: '/v1/models' })).status).toBe(200);
    expect(
      (
        await raw(proxy.port, {
          path: '/v1/models',
          headers: { origin: `http://127.0.0.1:${proxy.port}`, 'sec-fetch-site': 'same-origin' },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await raw(proxy.port, {
          path: '/v1/models',
          headers: { 'sec-fetch-site': 'none', 'sec-fetch-mode': 'navigate' },
        })
      ).status,
    ).toBe(200);
    const allowed = await raw(proxy.port, {
      path: '/v1/models',
      headers: { origin: 'http://localhost:5173', 'sec-fetch-site': 'same-site' },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    const preflight = await raw(proxy.port, {
      method: 'OPTIONS',
      path: '/v1/chat/completions',
      headers: { origin: 'http://localhost:5173', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect((await raw(proxy.port, { path: '/health', headers: { 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
    expect(
      (await raw(proxy.port, { path: '/', headers: { origin: 'https://evil.test', 'sec-fetch-site': 'cross-site' } }))
        .status,
    ).toBe(200);
  });

  it('cannot flood the log: per source, one warn line a minute, the rest at debug, every one answered and counted', async () => {
    let clock = Date.now();
    const proxy = await started(startProxy({ modes: ['tool'] }, { deps: { now: () => clock } }));
    const sources: Array<{ name: string; headers: Record<string, string>; times: number }> = [
      {
        name: 'a page with an Origin',
        headers: { origin: 'https://evil.test', 'sec-fetch-site': 'cross-site' },
        times: 60,
      },
      {
        name: 'an <img> (no Origin)',
        headers: { 'sec-fetch-site': 'cross-site', 'sec-fetch-mode': 'no-cors' },
        times: 60,
      },
      { name: 'a rebinding page', headers: { host: 'rebound.attacker.test' }, times: 30 },
    ];
    for (const s of sources) {
      for (let i = 0; i < s.times; i++)
        expect((await raw(proxy.port, { path: '/v1/models', headers: s.headers })).status, s.name).toBe(403);
    }
    const refusalLines = () => proxy.logs().filter((l) => l.msg === 'request' && l.status === 403);
    const warned = refusalLines().filter((l) => l.level === 40);
    expect(warned).toHaveLength(3);
    expect(warned.map((l) => l.field)).toEqual(['origin', 'sec-fetch-site', 'host']);
    expect(warned.every((l) => l.refusedSinceLastWarn === 0)).toBe(true);
    // The rest are still there for whoever runs at debug level.
    expect(refusalLines().filter((l) => l.level === 20)).toHaveLength(150 - 3);
    const metrics = (await raw(proxy.port, { path: '/metrics' })).body;
    const counted = [...metrics.matchAll(/assistant_proxy_refused_requests_total\{reason="[a-z-]+"\} (\d+)/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
    expect(counted).toBe(150);

    // A minute on, the page's next refusal is a warn line again, saying how many went to debug meanwhile.
    clock += 60_000;
    expect((await raw(proxy.port, { path: '/v1/models', headers: sources[0].headers })).status).toBe(403);
    const again = refusalLines().filter((l) => l.level === 40);
    expect(again).toHaveLength(4);
    expect(again[3]).toMatchObject({ field: 'origin', refusedSinceLastWarn: 59 });
  });
});

describe('PROXY_ACCESS_KEY on loopback', () => {
  it('is required for every route but basic /health and GET /, and accepted as the API key or in its own header', async () => {
    const key = 'loopback-access-key-0123456789';
    const usage = ledger();
    const fake = await makeFakeCli();
    cleanups.push(() => fake.cleanup());
    const proxy = await started(
      startProxy({ modes: ['tool'], cliPath: fake.path, accessKey: key, metricsEnabled: true }, { usage }),
    );
    for (const [method, path] of [
      ['GET', '/v1/models'],
      ['GET', '/compat/v1/models'],
      ['POST', '/v1/chat/completions'],
      ['GET', '/usage/requests'],
      ['GET', '/usage/summary'],
      ['GET', '/metrics'],
      ['GET', '/health/detailed'],
    ]) {
      const refused = await raw(proxy.port, {
        method,
        path,
        headers: { 'content-type': 'application/json' },
        body: method === 'POST' ? chat : undefined,
      });
      expect(refused.status, `${method} ${path}`).toBe(401);
      expect(refused.body).not.toContain(key);
    }
    expect((await raw(proxy.port, { path: '/v1/models', headers: { authorization: `Bearer ${key}` } })).status).toBe(
      200,
    );
    expect((await raw(proxy.port, { path: '/usage/summary', headers: { 'x-api-key': key } })).status).toBe(200);
    expect((await raw(proxy.port, { path: '/metrics', headers: { 'x-proxy-access-key': key } })).status).toBe(200);
    expect(
      (await raw(proxy.port, { path: '/v1/models', headers: { authorization: 'Bearer wrong-key-0123456789' } })).status,
    ).toBe(401);
    expect((await raw(proxy.port, { path: '/health' })).status).toBe(200);
    expect((await raw(proxy.port, { path: '/' })).status).toBe(200);
    expect(proxy.logText()).not.toContain(key);
  });
});

describe('captured bodies (CAPTURE_BODIES)', () => {
  it('keep no key or token of any common shape, nor the proxy access key, in bodies or headers', async () => {
    const { settings } = await provider();
    const key = 'capture-access-key-0123456789';
    const usage = ledger(true);
    const proxy = await started(
      startProxy({ ...settings, modes: ['direct'], accessKey: key, captureBodies: true }, { usage }),
    );
    const secrets = [
      'sk-' + 'T3BlbkFJa1b2c3d4e5f6g7h8i9j0k1l2m3n4o5p6q7r8s9t0',
      'sk-proj-' + 'a1b2c3d4e5f6g7h8i9j0k1l2m3n4',
      'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8',
      'github_pat_' + '11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz',
      'AKIA' + 'IOSFODNN7EXAMPLE',
      'AIza' + 'SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q',
      'xoxb-' + '123456789012-1234567890123-AbCdEfGhIjKlMnOp',
      key,
    ];
    const body = JSON.stringify({
      model: 'assistant-sonnet-4-20250514',
      max_tokens: 16,
      messages: [{ role: 'user', content: `keys: ${secrets.join(' ')}` }],
    });
    const headerSecret = 'azure-style-key-value-0123456789';
    const res = await raw(proxy.port, {
      method: 'POST',
      path: '/api/v1/messages',
      headers: {
        'content-type': 'application/json',
        'x-proxy-access-key': key,
        'api-key': headerSecret,
        'x-goog-api-key': headerSecret,
        'x-request-id': 'capture-check-1',
      },
      body,
    });
    expect(res.status).toBe(200);
    // A forwarded provider answer carries nosniff too.
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    usage.flush();
    const row = await raw(proxy.port, {
      path: '/usage/requests/capture-check-1',
      headers: { 'x-proxy-access-key': key },
    });
    expect(row.status).toBe(200);
    const captured = (JSON.parse(row.body) as { captured?: { request: string; headers: Record<string, string> } })
      .captured;
    expect(captured?.request).toContain('keys: ');
    for (const s of [...secrets, headerSecret]) expect(row.body, s.slice(0, 8)).not.toContain(s);
    expect(captured?.headers['api-key']).toBe('[redacted]');
    expect(captured?.headers['x-goog-api-key']).toBe('[redacted]');
  });
});

describe('connections', () => {
  async function openIdle(port: number, n: number): Promise<Socket[]> {
    const out: Socket[] = [];
    for (let i = 0; i < n; i++) {
      out.push(
        await new Promise<Socket>((resolve, reject) => {
          const s = connect(port, '127.0.0.1', () => resolve(s));
          s.on('error', reject);
          s.resume(); // read what the server sends, so its close is seen
        }),
      );
    }
    cleanups.push(() => out.forEach((s) => s.destroy()));
    return out;
  }
  const closedSoon = (s: Socket) =>
    new Promise<boolean>((resolve) => {
      if (s.destroyed || s.readyState === 'closed') return resolve(true);
      s.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 3000).unref();
    });

  it('closes connections beyond the per-client cap and beyond the total cap, with one clear log line each', async () => {
    const proxy = await started(startProxy({ modes: ['tool'], maxConnections: 1000, maxConnectionsPerClient: 5 }));
    const held = await openIdle(proxy.port, 5);
    const [extra] = await openIdle(proxy.port, 1);
    expect(await closedSoon(extra)).toBe(true);
    await openIdle(proxy.port, 3).then((more) => Promise.all(more.map(closedSoon)));
    const lines = proxy.logs().filter((l) => String(l.msg).startsWith('connection cap reached'));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, cap: 'per_client', limit: 5 });
    expect(String(lines[0].msg)).toContain('MAX_CONNECTIONS_PER_CLIENT');
    for (const s of held) s.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect((await raw(proxy.port, { path: '/v1/models' })).status).toBe(200);
    expect((await raw(proxy.port, { path: '/metrics' })).body).toMatch(
      /assistant_proxy_refused_connections_total\{reason="per_client"\} 4/,
    );

    const total = await started(startProxy({ modes: ['tool'], maxConnections: 3, maxConnectionsPerClient: 100 }));
    await openIdle(total.port, 3);
    const [over] = await openIdle(total.port, 1);
    expect(await closedSoon(over)).toBe(true);
    expect(total.logs().some((l) => l.cap === 'total' && String(l.msg).includes('MAX_CONNECTIONS'))).toBe(true);
  });

  it('closes a connection that never sends its request head (held sockets are reclaimed)', async () => {
    // bodyTimeoutMs bounds the receive deadlines (listen/listeners.ts): 500 ms here, so the head deadline is 1.5 s.
    const proxy = await started(startProxy({ modes: ['tool'], bodyTimeoutMs: 500 }));
    const [idle] = await openIdle(proxy.port, 1);
    let answer = '';
    idle.on('data', (d: Buffer) => (answer += d.toString('utf8')));
    idle.write('GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // never finished
    const closed = await new Promise<boolean>((resolve) => {
      idle.once('close', () => resolve(true));
      setTimeout(() => resolve(false), 5000).unref();
    });
    expect(closed).toBe(true);
    // node's status for it, with our headers (http/client-error.ts).
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/);
  });
});

describe('headers', () => {
  it('refuses two Host headers (the first was believed), on loopback and beyond', async () => {
    const loop = await started(startProxy({ modes: ['tool'] }));
    const answer = await rawBytes(
      loop.port,
      'GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.test\r\nConnection: close\r\n\r\n',
    );
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('duplicate Host header');
    const key = 'beyond-loopback-key-0123456789';
    const lan = await started(startProxy({ modes: ['tool'], host: '::ffff:127.0.0.1', accessKey: key }));
    const again = await rawBytes(
      lan.port,
      `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: evil.test\r\nx-api-key: ${key}\r\nConnection: close\r\n\r\n`,
    );
    expect(again).toMatch(/^HTTP\/1\.1 400 /);
  });

  it("answers what node's HTTP parser refuses with node's status plus nosniff, Connection: close and a body, logged once", async () => {
    const proxy = await started(startProxy({ modes: ['tool'] }));
    const badMethod = 'G@T /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n';
    const answers = [
      await rawBytes(proxy.port, badMethod),
      await rawBytes(proxy.port, 'GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n'),
      // Over node's 16 KiB head limit.
      await rawBytes(proxy.port, `GET /v1/models HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
    ];
    expect(answers.map((a) => a.split('\r\n')[0])).toEqual([
      'HTTP/1.1 400 Bad Request',
      'HTTP/1.1 400 Bad Request',
      'HTTP/1.1 431 Request Header Fields Too Large',
    ]);
    for (const a of answers) {
      expect(a).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
      expect(a).toMatch(/\r\nConnection: close\r\n/i);
      // The route family is unknown before the request line parses: the general shape
      // (docs/interface.md "General errors").
      const body = JSON.parse(a.slice(a.indexOf('\r\n\r\n') + 4)) as {
        error: { type: string; message: string; details: { field: string } };
      };
      expect(body.error).toMatchObject({ type: 'validation_error', details: { field: 'request' } });
    }
    expect(answers[2]).toContain('must stay under 16384 bytes');

    // An HTTP/1.1 request without Host: node's bare 400 before; now the host guard's, in the family's shape.
    const noHost = await rawBytes(proxy.port, 'GET /v1/models HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect(noHost).toMatch(/^HTTP\/1\.1 400 /);
    expect(noHost).toMatch(/\r\nx-content-type-options: nosniff\r\n/i);
    expect(noHost).toContain('"type":"invalid_request_error"');
    expect(noHost).toContain('missing Host header');

    // A flood of them: one warn line per parser code a minute, the rest at debug.
    for (let i = 0; i < 5; i++) expect(await rawBytes(proxy.port, badMethod)).toMatch(/^HTTP\/1\.1 400 /);
    const lines = proxy
      .logs()
      .filter((l) => l.msg === 'request refused by the HTTP parser' && l.code === 'HPE_INVALID_METHOD');
    expect(lines.map((l) => l.level)).toEqual([40, 20, 20, 20, 20, 20]);
    expect((await raw(proxy.port, { path: '/v1/models' })).status).toBe(200);
  });

  it('sends X-Content-Type-Options: nosniff on every answer: success, errors, refusals and streams', async () => {
    const fake = await makeFakeCli();
    cleanups.push(() => fake.cleanup());
    const proxy = await started(startProxy({ modes: ['tool'], cliPath: fake.path }));
    const answers = [
      await raw(proxy.port, { path: '/v1/models' }),
      await raw(proxy.port, { path: '/health' }),
      await raw(proxy.port, { path: '/' }),
      await raw(proxy.port, { path: '/no/such/route' }),
      await raw(proxy.port, { path: '/v1/models', headers: { 'sec-fetch-site': 'cross-site' } }),
      await raw(proxy.port, {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'text/plain' },
        body: 'x',
      }),
      await raw(proxy.port, {
        method: 'POST',
        path: '/v1/chat/completions',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ ...JSON.parse(chat), stream: true }),
      }),
    ];
    for (const a of answers) expect(a.headers['x-content-type-options'], String(a.status)).toBe('nosniff');
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 404, 403, 415, 200]);
    expect(answers[6].headers['content-type']).toContain('text/event-stream');
  });
});

describe('the CLI command line', () => {
  /** A tool-mode proxy over the fake CLI, and one native chat with `extra` in its body; the fake's records. */
  async function chatWith(extra: Record<string, unknown>) {
    const fake = await makeFakeCli();
    cleanups.push(() => fake.cleanup());
    const dataDir = mkdtempSync(join(tmpdir(), 'security-argv-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const proxy = await started(startProxy({ modes: ['tool'], cliPath: fake.path, dataDir }));
    const res = await raw(proxy.port, {
      method: 'POST',
      path: '/v1/messages',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'hi' }],
        ...extra,
      }),
    });
    expect(res.status).toBe(200);
    return fake.records();
  }

  it("never carries a client's system prompt (every local user can read /proc/<pid>/cmdline); it goes in an owner-only file", async () => {
    const secretPrompt = 'You are the billing bot of ACME; internal discount code PURPLE-OTTER-4471.';
    const records = await chatWith({ system: secretPrompt });
    const chats = records.filter((r) => !r.argv.includes('--version') && !r.argv.includes('auth'));
    expect(chats.length).toBeGreaterThan(0);
    for (const r of chats) {
      expect(r.argv.join(' ')).not.toContain('PURPLE-OTTER');
      expect(r.systemPrompt).toContain('PURPLE-OTTER-4471');
      expect(r.systemPromptFileMode).toBe('600');
    }
  });

  it("never carries a client's JSON schema: it reaches the CLI on stdin, in the control request its SDK sends", async () => {
    const schema = {
      type: 'object',
      properties: { discount: { type: 'string', description: 'the ACME code PURPLE-OTTER-4471', enum: ['TEAL-FOX'] } },
    };
    const records = await chatWith({ output_config: { format: { type: 'json_schema', schema } } });
    const chats = records.filter((r) => r.jsonSchema !== null);
    expect(chats.length).toBeGreaterThan(0);
    for (const r of chats) {
      expect(r.argv.join(' ')).not.toMatch(/PURPLE-OTTER|TEAL-FOX|discount/);
      expect(JSON.parse(r.jsonSchema!)).toEqual(schema);
    }
  });
});
