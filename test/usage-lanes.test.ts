// Which lane paid for each request, and the provider's two billing refusals, through direct mode and the response
// API against the provider simulator (docs/usage.md "Lanes"): the ledger row, /usage/requests, the summary by lane,
// the CSV export, the metric by reason, and the error a client reads. Tool mode with the real CLI is in
// tool-lanes-real-cli.test.ts.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startRespapiBed, type RespapiBed } from './respapi-bed.js';
import { billingRefusalText, startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const native = { model: 'assistant-sonnet-4-20250514', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] };
const compat = { model: 'assistant-sonnet-4-20250514', messages: [{ role: 'user', content: 'hi' }] };

describe('billing lanes in direct mode', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let ledger: UsageLedger;
  let dir: string;

  beforeAll(async () => {
    sim = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'usage-lanes-'));
    const credentialsPath = await writeCliCredentials(dir, {
      accessToken: 'sk-ant-oat01-lanes',
      refreshToken: 'sk-ant-ort01-lanes',
      expiresAt: Date.now() + 3_600_000,
    });
    ledger = UsageLedger.open({ dataDir: join(dir, 'data'), retentionDays: 30, maxMb: 16 });
    proxy = await startProxy(
      {
        apiBaseUrl: sim.url,
        credentialsPath,
        oauthTokenUrl: sim.cliTokenUrl,
        modes: ['direct'],
        rateLimitPerMinute: 1000,
      },
      { usage: ledger },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    ledger?.close();
    await sim?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => sim.reset());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const last = async () => {
    const res = await fetch(`${proxy.url}/usage/requests?limit=1`, { headers: proxy.owner });
    return ((await res.json()) as { requests: Array<Record<string, unknown>> }).requests[0];
  };

  it('records the plan when the unified headers say no overage, on both direct routes, streamed or not', async () => {
    sim.knobs.overage = { inUse: false };
    for (const [path, body] of [
      ['/api/v1/messages', native],
      ['/api/v1/messages', { ...native, stream: true }],
      ['/api/v1/chat/completions', compat],
      ['/api/v1/chat/completions', { ...compat, stream: true }],
    ] as const) {
      const res = await post(path, body);
      expect(res.status).toBe(200);
      await res.text();
      expect(await last()).toMatchObject({
        route: path,
        billing_lane: 'plan',
        outcome: 'ok',
        refusal: null,
        tokens_partial: false,
        lane_carried: false,
      });
    }
  });

  it('records extra usage when the provider says overage is in use', async () => {
    sim.knobs.overage = { inUse: true, utilization: 0.05 };
    for (const [path, body] of [
      ['/api/v1/messages', { ...native, stream: true }],
      ['/api/v1/chat/completions', compat],
    ] as const) {
      const res = await post(path, body);
      await res.text();
      expect(await last()).toMatchObject({ route: path, billing_lane: 'extra_usage', outcome: 'ok' });
    }
  });

  it("records the client's own key as api_key, and nothing when no signal came", async () => {
    sim.knobs.overage = { inUse: true };
    const res = await post('/api/v1/messages', native, { 'x-api-key': 'sk-ant-api03-client-own-key' });
    expect(res.status).toBe(200);
    await res.text();
    expect(await last()).toMatchObject({ billing_lane: 'api_key' });
    sim.knobs.overage = undefined;
    await (await post('/api/v1/messages', native)).text();
    expect(await last()).toMatchObject({ billing_lane: null });
  });

  it('explains the extra-usage refusal in each route shape, with a ledger row, a log line and a metric', async () => {
    sim.knobs.billingRefusal = { reason: 'extra_usage_off' };
    const compatRes = await post('/api/v1/chat/completions', compat);
    expect(compatRes.status).toBe(400);
    const compatBody = (await compatRes.json()) as { error: { message: string; type: string } };
    expect(compatBody.error.type).toBe('invalid_request_error');
    expect(compatBody.error.message).toMatch(
      /^The provider billed or refused this as third-party use of a subscription/,
    );
    expect(compatBody.error.message).toContain(billingRefusalText.extra_usage_off);
    expect(await last()).toMatchObject({
      route: '/api/v1/chat/completions',
      status: 400,
      outcome: 'upstream_error',
      refusal: 'extra_usage_off',
      billing_lane: 'extra_usage',
    });

    const nativeRes = await post('/api/v1/messages', native);
    expect(nativeRes.status).toBe(400);
    const nativeBody = (await nativeRes.json()) as { type: string; error: { type: string; message: string } };
    expect(nativeBody).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(nativeBody.error.message).toMatch(/^The provider billed or refused this as third-party use/);
    expect(await last()).toMatchObject({ route: '/api/v1/messages', status: 400, refusal: 'extra_usage_off' });

    const lines = proxy.logs().filter((l) => l.msg === 'billing refusal: extra_usage_off');
    expect(lines.length).toBe(2);
    const metrics = await (await fetch(`${proxy.url}/metrics`)).text();
    expect(metrics).toMatch(/assistant_proxy_billing_refusals_total\{reason="extra_usage_off",mode="direct"\} 2/);
  });

  it('records a refusal that arrives in the stream, after the headers, on every streamed route', async () => {
    sim.knobs.streamFault = 'error';
    sim.knobs.jsonChunks = 4;
    sim.knobs.streamError = { type: 'invalid_request_error', message: billingRefusalText.extra_usage_off };
    for (const [path, body] of [
      ['/api/v1/chat/completions', compat],
      ['/api/v1/responses', { model: compat.model, input: 'hi' }],
      ['/api/v1/messages', native],
    ] as const) {
      const res = await post(path, { ...body, stream: true });
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain('extra usage');
      expect(await last(), path).toMatchObject({
        route: path,
        refusal: 'extra_usage_off',
        billing_lane: 'extra_usage',
      });
    }
  });

  it('explains the CLI-only login refusal', async () => {
    sim.knobs.billingRefusal = { reason: 'cli_only_credential', when: 'third-party' };
    const res = await post('/api/v1/chat/completions', compat);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/^This login only works through the CLI/);
    expect(body.error.message).toContain('tool mode (/v1, /compat/v1)');
    expect(await last()).toMatchObject({
      refusal: 'cli_only_credential',
      billing_lane: 'plan',
      outcome: 'upstream_error',
    });
    // The client's own key is not a subscription login: the same simulator serves it.
    const own = await post('/api/v1/chat/completions', compat, { 'x-api-key': 'sk-ant-api03-client-own-key' });
    expect(own.status).toBe(200);
  });

  it('keeps token figures exactly as reported: a stream that ends before its final usage has none for output, flagged partial', async () => {
    sim.knobs.overage = { inUse: false };
    sim.knobs.replyText = 'one two three four five six seven';
    const whole = await post('/api/v1/messages', { ...native, stream: true });
    await whole.text();
    expect(await last()).toMatchObject({ output_tokens: 7, tokens_partial: false });
    // The provider ends the stream after half the deltas, without message_delta: the old rows kept message_start's 1.
    sim.knobs.streamFault = 'truncate';
    for (const path of ['/api/v1/messages', '/api/v1/chat/completions']) {
      const cut = await post(
        path,
        path.endsWith('messages') ? { ...native, stream: true } : { ...compat, stream: true },
      );
      await cut.text();
      const row = await last();
      expect(row).toMatchObject({ route: path, output_tokens: null, tokens_partial: true, outcome: 'upstream_error' });
      expect(row.input_tokens).toBeGreaterThan(0);
    }
    // A client that leaves mid-answer: the same.
    sim.knobs.streamFault = 'stall';
    const left = await post('/api/v1/messages', { ...native, stream: true });
    const reader = left.body!.getReader();
    await reader.read();
    await reader.cancel();
    await new Promise((r) => setTimeout(r, 100));
    expect(await last()).toMatchObject({ output_tokens: null, tokens_partial: true, outcome: 'client_gone' });
  });

  it('shows each window with its pace, the overage state and extra-usage use in /usage/limits, and who used the 5-hour window', async () => {
    const now = Math.floor(Date.now() / 1000);
    // 60 % used two hours into the window: 30 % an hour, the limit in 1 h 20 min, before the reset in 3 h.
    sim.knobs.quotaHeaders = {
      'anthropic-ratelimit-unified-5h-utilization': '0.6',
      'anthropic-ratelimit-unified-5h-reset': String(now + 3 * 3600),
      'anthropic-ratelimit-unified-5h-status': 'allowed_warning',
    };
    sim.knobs.overage = { inUse: true, utilization: 0.1, resetsAt: now + 20 * 86_400 };
    await (await post('/api/v1/messages', native, { 'user-agent': 'curl/8.5.0' })).text();
    const limits = (await (await fetch(`${proxy.url}/usage/limits`, { headers: proxy.owner })).json()) as {
      windows: Array<{
        source: string;
        window: string;
        utilization: number;
        length_seconds: number | null;
        pace: { expected_at_reset: number; limit_at: number | null; reaches_limit_before_reset: boolean } | null;
      }>;
      overage: Array<{ source: string; status: string; in_use: boolean }>;
      extra_usage: { requests: number; since: number };
    };
    const five = limits.windows.find((w) => w.source === 'direct' && w.window === 'five_hour')!;
    expect(five).toMatchObject({ utilization: 0.6, status: 'allowed_warning', length_seconds: 5 * 3600 });
    expect(five.pace?.expected_at_reset).toBeCloseTo(1.5, 2);
    expect(five.pace?.reaches_limit_before_reset).toBe(true);
    expect(Math.abs(five.pace!.limit_at! - (now + 4800))).toBeLessThan(5);
    const overage = limits.windows.find((w) => w.window === 'overage')!;
    expect(overage).toMatchObject({ utilization: 0.1, length_seconds: null, pace: null });
    expect(limits.overage).toEqual([expect.objectContaining({ source: 'direct', status: 'allowed', in_use: true })]);
    expect(limits.extra_usage.requests).toBeGreaterThanOrEqual(1);
    expect(limits.extra_usage.since).toBe((now + 3 * 3600 - 5 * 3600) * 1000);
    const summary = (await (await fetch(`${proxy.url}/usage/summary`, { headers: proxy.owner })).json()) as {
      five_hour_clients: { window_known: boolean; clients: Array<{ client: string; share: number }> };
    };
    expect(summary.five_hour_clients.window_known).toBe(true);
    expect(summary.five_hour_clients.clients.map((c) => c.client)).toContain('curl');
    expect(summary.five_hour_clients.clients.reduce((a, c) => a + c.share, 0)).toBeCloseTo(1, 3);
  });

  it('serves lanes in the summary by lane, the request filter and the CSV export', async () => {
    const summary = (await (await fetch(`${proxy.url}/usage/summary?by=lane`, { headers: proxy.owner })).json()) as {
      rows: Array<{ key: string; requests: number }>;
    };
    const keys = summary.rows.map((r) => r.key);
    expect(keys).toEqual(expect.arrayContaining(['plan', 'extra_usage', 'api_key', 'unknown']));
    const extra = (await (
      await fetch(`${proxy.url}/usage/requests?lane=extra_usage&limit=100`, { headers: proxy.owner })
    ).json()) as { requests: Array<{ billing_lane: string }> };
    expect(extra.requests.length).toBeGreaterThan(0);
    expect(extra.requests.every((r) => r.billing_lane === 'extra_usage')).toBe(true);
    const bad = await fetch(`${proxy.url}/usage/requests?lane=free`, { headers: proxy.owner });
    expect(bad.status).toBe(400);
    const csv = await (await fetch(`${proxy.url}/usage/export.csv`, { headers: proxy.owner })).text();
    const [header, ...rows] = csv.trim().split('\r\n');
    expect(header.split(',').slice(-5)).toEqual([
      'billing_lane',
      'refusal',
      'tokens_partial',
      'lane_carried',
      'purpose',
    ]);
    expect(rows.some((r) => r.endsWith(',extra_usage,extra_usage_off,false,false,'))).toBe(true);
  });
});

describe('billing lane of the response API', () => {
  let bed: RespapiBed;
  let ledger: UsageLedger;
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'usage-lanes-respapi-'));
    ledger = UsageLedger.open({ dataDir: dir, retentionDays: 30, maxMb: 16 });
    bed = await startRespapiBed({ usage: ledger });
  });
  afterAll(async () => {
    await bed.close();
    ledger.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("projects the response API's windows too", async () => {
    const now = Math.floor(Date.now() / 1000);
    bed.sim.knobs.respapiQuotaHeaders = {
      'x-codex-primary-used-percent': '42',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-at': String(now + 3600),
    };
    await (await bed.post('/respapi/responses', { model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] })).text();
    const limits = (await (await fetch(`${bed.proxy.url}/usage/limits`, { headers: bed.proxy.owner })).json()) as {
      windows: Array<{ source: string; window: string; pace: { expected_at_reset: number } | null }>;
    };
    const primary = limits.windows.find((w) => w.source === 'respapi' && w.window === 'five_hour')!;
    // 42 % four hours in: 52.5 % at the reset.
    expect(primary.pace?.expected_at_reset).toBeCloseTo(0.525, 2);
  });

  it('records response_api for an answer of the response API', async () => {
    const res = await bed.post('/respapi/responses', { model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    await res.text();
    expect(ledger.requests().rows[0]).toMatchObject({ mode: 'respapi', billingLane: 'response_api', outcome: 'ok' });
  });
});
