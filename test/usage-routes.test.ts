// The /usage endpoints on a real proxy (createProxy with the usage routes added, the way server.ts wires them)
// over a real ledger file: shapes, paging, the summary, limits, the streamed CSV, 400s naming the parameter in
// the general error shape (docs/interface.md "General errors"), and the access key when the proxy listens beyond
// loopback.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Router from '@koa/router';
import { afterEach, describe, expect, it } from 'vitest';
import { validateSettings, type Settings } from '../src/proxy/config.js';
import { createLogger } from '../src/proxy/logger.js';
import { createProfile } from '../src/proxy/profile.js';
import { registerUsage } from '../src/proxy/routes/usage.js';
import { createProxy, type ProxyServer } from '../src/proxy/server.js';
import type { ProxyState } from '../src/proxy/http/state.js';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import type { UsageRecord } from '../src/proxy/usage/types.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(settings: Settings = {}): Promise<{ url: string; ledger: UsageLedger; proxy: ProxyServer }> {
  const dir = mkdtempSync(join(tmpdir(), 'usage-routes-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const profile = createProfile({});
  const config = validateSettings(
    { port: 0, logLevel: 'warn', healthRefreshMs: 60_000, modes: ['direct'], dataDir: dir, ...settings },
    profile,
  );
  const logger = createLogger('warn', new Writable({ write: (_c, _e, cb) => cb() }));
  const ledger = UsageLedger.open({ dataDir: dir, retentionDays: 36_500, maxMb: 64, logger });
  cleanups.push(() => ledger.close());
  const proxy = createProxy({ config, profile, logger, ownerKey });
  const router = new Router<ProxyState>();
  registerUsage(router, proxy.services, ledger);
  proxy.app.use(router.routes());
  const { url } = await proxy.listen();
  cleanups.push(() => proxy.close(200));
  return { url: url.replace('[::ffff:127.0.0.1]', '127.0.0.1'), ledger, proxy };
}

// The owner's key: usage data needs it on loopback too (docs/security.md "The owner's key").
const ownerKey = 'usage-owner-key-0123456789';
const get = (url: string) => fetch(url, { headers: { 'x-proxy-access-key': ownerKey } });

let n = 0;
function rec(over: Partial<UsageRecord> = {}): UsageRecord {
  n++;
  return {
    requestId: `r${n}`,
    startedAt: Date.UTC(2026, 10, 20, 12) + n * 1000,
    mode: 'direct',
    route: '/api/v1/messages',
    method: 'POST',
    streamed: false,
    modelRequested: 'assistant-sonnet-4',
    modelServed: 'assistant-sonnet-4',
    client: 'curl',
    status: 200,
    outcome: 'ok',
    errorType: null,
    tokens: { input: 10, output: 20, cacheRead: 0, cacheWrite: null },
    ttftMs: 50,
    durationMs: 80,
    ...over,
  };
}

async function json(res: Response): Promise<Record<string, unknown>> {
  return (await res.json()) as Record<string, unknown>;
}

describe('GET /usage/*', () => {
  it('pages the request history newest first, filters, and shows one request', async () => {
    const { url, ledger } = await start();
    for (let i = 0; i < 5; i++) ledger.record(rec({ outcome: i === 2 ? 'client_gone' : 'ok' }));
    const first = await json(await get(`${url}/usage/requests?limit=3`));
    const ids = (first.requests as Array<{ request_id: string }>).map((r) => r.request_id);
    expect(ids).toHaveLength(3);
    const second = await json(await get(`${url}/usage/requests?limit=3&before=${String(first.next_before)}`));
    expect(second.next_before).toBeUndefined();
    const all = [...ids, ...(second.requests as Array<{ request_id: string }>).map((r) => r.request_id)];
    expect(new Set(all).size).toBe(5);
    const gone = await json(await get(`${url}/usage/requests?outcome=client_gone`));
    expect(gone.requests).toHaveLength(1);
    const one = (gone.requests as Array<Record<string, unknown>>)[0];
    expect(one).toMatchObject({
      mode: 'direct',
      outcome: 'client_gone',
      input_tokens: 10,
      cache_write_tokens: null,
      streamed: false,
    });
    const byId = await get(`${url}/usage/requests/${String(one.request_id)}`);
    expect(await json(byId)).toEqual(one);
    const missing = await get(`${url}/usage/requests/nope`);
    expect(missing.status).toBe(404);
    expect((await json(missing)).error).toMatchObject({ type: 'not_found' });
  });

  it('summarises a range by model with tokens and TTFT percentiles', async () => {
    const { url, ledger } = await start();
    ledger.record(rec({ modelServed: 'm1', ttftMs: 10 }));
    ledger.record(rec({ modelServed: 'm1', ttftMs: 30 }));
    ledger.record(
      rec({
        modelServed: 'm2',
        outcome: 'upstream_error',
        status: 502,
        tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
        ttftMs: null,
      }),
    );
    const s = await json(await get(`${url}/usage/summary?from=2026-11-20&to=2026-11-21&by=model`));
    expect(s.by).toBe('model');
    expect(s.rows).toEqual([
      {
        key: 'm1',
        requests: 2,
        errors: 0,
        tokens: { input: 20, output: 40, cache_read: 0, cache_write: 0 },
        unreported_tokens: 0,
        cache_read_share: 0,
        ttft_p50_ms: 10,
        ttft_p95_ms: 30,
      },
      {
        key: 'm2',
        requests: 1,
        errors: 1,
        tokens: { input: 0, output: 0, cache_read: 0, cache_write: 0 },
        unreported_tokens: 1,
        cache_read_share: null,
        ttft_p50_ms: null,
        ttft_p95_ms: null,
      },
    ]);
    expect(s.total).toMatchObject({ requests: 3, errors: 1 });
  });

  it("tells each client's share of its prompt read from the cache, by client and in the 5-hour window", async () => {
    const { url, ledger } = await start();
    const now = Date.now();
    // A client whose turns read their history (900 of 1,000 prompt tokens), and one that pays it again.
    ledger.record(
      rec({ startedAt: now, client: 'opencode', tokens: { input: 20, output: 5, cacheRead: 900, cacheWrite: 80 } }),
    );
    ledger.record(
      rec({ startedAt: now, client: 'curl', tokens: { input: 1000, output: 5, cacheRead: 0, cacheWrite: 0 } }),
    );
    ledger.flush();
    const s = await json(await get(`${url}/usage/summary?by=client`));
    const rows = Object.fromEntries(
      (s.rows as Array<{ key: string; cache_read_share: number }>).map((r) => [r.key, r]),
    );
    expect(rows.opencode.cache_read_share).toBe(0.9);
    expect(rows.curl.cache_read_share).toBe(0);
    const window = s.five_hour_clients as { clients: Array<{ client: string; cache_read_share: number | null }> };
    expect(Object.fromEntries(window.clients.map((c) => [c.client, c.cache_read_share]))).toEqual({
      opencode: 0.9,
      curl: 0,
    });
  });

  it('shows quota windows with times in Unix seconds', async () => {
    const { url, ledger } = await start();
    expect(await json(await get(`${url}/usage/limits`))).toMatchObject({
      windows: [],
      overage: [],
      extra_usage: { requests: 0, tokens: 0, first_at: null },
    });
    ledger.upstreamHeaders('direct', {
      'anthropic-ratelimit-unified-5h-utilization': '0.18',
      'anthropic-ratelimit-unified-5h-reset': '1795400158',
      'anthropic-ratelimit-unified-5h-status': 'allowed',
    });
    const body = await json(await get(`${url}/usage/limits`));
    const windows = body.windows as Array<Record<string, unknown>>;
    expect(windows).toHaveLength(1);
    expect(windows[0]).toMatchObject({
      source: 'direct',
      window: 'five_hour',
      utilization: 0.18,
      resets_at: 1795400158,
      status: 'allowed',
    });
    expect(Math.abs((windows[0].observed_at as number) - Date.now() / 1000)).toBeLessThan(60);
  });

  it('streams the CSV export of a date range', async () => {
    const { url, ledger } = await start();
    for (let i = 0; i < 3; i++) ledger.record(rec({ client: i === 1 ? '+cmd' : 'curl' }));
    ledger.record(rec({ startedAt: Date.UTC(2026, 0, 1) }));
    const res = await get(`${url}/usage/export.csv?from=2026-11-20&to=2026-11-21`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(
      'attachment; filename="assistant-proxy-usage-2026-11-20-to-2026-11-21.csv"',
    );
    const lines = (await res.text()).split('\r\n');
    expect(lines[0].startsWith('started_at,request_id,')).toBe(true);
    expect(lines).toHaveLength(5); // header, three rows, and the empty string after the last CRLF
    expect(lines[2]).toContain(",'+cmd,");
  });

  it('answers a bad parameter with 400 in the general shape naming it', async () => {
    const { url } = await start();
    const cases: Array<[string, string]> = [
      ['/usage/requests?limit=0', 'limit'],
      ['/usage/requests?limit=abc', 'limit'],
      ['/usage/requests?limit=5000', 'limit'],
      ['/usage/requests?mode=fax', 'mode'],
      ['/usage/requests?outcome=great', 'outcome'],
      ['/usage/requests?before=yesterday', 'before'],
      ['/usage/requests?limit=1&limit=2', 'limit'],
      ['/usage/requests?colour=red', 'colour'],
      ['/usage/summary?by=week', 'by'],
      ['/usage/summary?from=2026-11-22&to=2026-11-01', 'from'],
      ['/usage/export.csv?to=2026-13-45', 'to'],
      ['/usage/limits?x=1', 'x'],
    ];
    for (const [path, field] of cases) {
      const res = await get(url + path);
      expect(res.status, path).toBe(400);
      const body = await json(res);
      expect(body.error, path).toMatchObject({ type: 'validation_error', details: { field } });
      expect(String((body.error as { message: string }).message), path).toContain(field);
    }
  });

  it("requires the owner's key on loopback, where chats need none, and names where the key is", async () => {
    const { url } = await start();
    for (const path of [
      '/usage/requests',
      '/usage/requests/r1',
      '/usage/summary',
      '/usage/limits',
      '/usage/export.csv',
    ]) {
      const refused = await fetch(url + path);
      expect(refused.status, path).toBe(401);
      const body = await json(refused);
      expect(String((body.error as { message: string }).message), path).toMatch(/owner key.*owner-key/s);
      expect(body).not.toHaveProperty('requests');
      const wrong = await fetch(url + path, { headers: { 'x-api-key': 'not-the-owner-key-0123456789' } });
      expect(wrong.status, path).toBe(401);
      const ok = await get(url + path);
      expect([200, 404], path).toContain(ok.status);
      await ok.arrayBuffer();
    }
  });

  it('requires the access key when the proxy listens beyond loopback, like /health/detailed', async () => {
    const key = 'usage-access-key-0123456789';
    // An IPv4-mapped loopback address is not in the loopback list, so the proxy treats it as "beyond", yet
    // nothing leaves this machine.
    const { url } = await start({ host: '::ffff:127.0.0.1', accessKey: key });
    for (const path of ['/usage/requests', '/usage/summary', '/usage/limits', '/usage/export.csv']) {
      const refused = await fetch(url + path);
      expect(refused.status, path).toBe(401);
      const ok = await fetch(url + path, { headers: { authorization: `Bearer ${key}` } });
      expect(ok.status, path).toBe(200);
      await ok.arrayBuffer();
    }
  });
});
