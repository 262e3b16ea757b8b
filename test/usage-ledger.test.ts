// The usage ledger wired into a real proxy (docs/usage.md): many requests across tool mode (fake CLI) and direct
// mode (provider simulator), with clients that disconnect mid-stream, provider errors, streams that break and
// bodies that do not parse, must leave exactly one row each with the right outcome; the token sums equal what
// the upstream reported to the clients; and GET /usage/limits shows the quota windows of one direct-mode answer,
// also after the proxy restarts on the same data directory. USAGE_LEDGER_SCALE multiplies the counts.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateSettings } from '../src/proxy/config.js';
import { createLogger } from '../src/proxy/logger.js';
import { createProfile } from '../src/proxy/profile.js';
import { createProxy, type ProxyServer } from '../src/proxy/server.js';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import type { Outcome } from '../src/proxy/usage/types.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { childEnv } from './helpers/tool-proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const scale = Math.max(1, Number(process.env.USAGE_LEDGER_SCALE) || 1);
const model = 'assistant-sonnet-4-20250514';
const body = (stream: boolean) =>
  JSON.stringify({ model, max_tokens: 50, stream, messages: [{ role: 'user', content: 'Say hello' }] });

let sim: Simulator;
let cli: FakeCli;
let dir: string;
let credentialsPath: string;

beforeAll(async () => {
  sim = await startSimulator();
  cli = await makeFakeCli({});
  dir = await mkdtemp(join(tmpdir(), 'usage-ledger-'));
  credentialsPath = await writeCliCredentials(dir, {
    accessToken: 'sk-ant-oat01-usage-abcdef123456',
    refreshToken: 'sk-ant-ort01-usage-abcdef123456',
    expiresAt: Date.now() + 3_600_000,
  });
});

afterAll(async () => {
  await sim?.close();
  await cli?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

// The owner's key: usage data needs it (docs/security.md "The owner's key").
const ownerKey = 'usage-ledger-owner-key-0123456789';
const owner = { headers: { 'x-proxy-access-key': ownerKey } };

async function start(
  dataDir: string,
  captureBodies = false,
): Promise<{ url: string; proxy: ProxyServer; ledger: UsageLedger; stop(): Promise<void> }> {
  const profile = createProfile({});
  const config = validateSettings(
    {
      port: 0,
      logLevel: 'warn',
      healthRefreshMs: 60_000,
      shutdownGraceMs: 1000,
      modes: ['tool', 'direct'],
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      cliPath: cli.path,
      cliWorkDir: join(dir, 'cli-workdir'),
      rateLimitPerMinute: 100_000,
      dataDir,
    },
    profile,
  );
  const logger = createLogger('warn', new Writable({ write: (_c, _e, cb) => cb() }));
  const ledger = UsageLedger.open({
    dataDir,
    retentionDays: 36_500,
    maxMb: 64,
    logger,
    captureBodies,
    captureCount: 5,
  });
  // The model list is not read at start: its answer's quota headers would be windows before the first request.
  const proxy = createProxy({
    config,
    profile,
    logger,
    usage: ledger,
    deps: { childEnv, readModelsAtStart: false },
    ownerKey,
  });
  const { url } = await proxy.listen();
  return {
    url,
    proxy,
    ledger,
    async stop() {
      await proxy.close(500);
      ledger.close();
    },
  };
}

interface Sent {
  id: string;
  expect: Outcome;
  /** Tokens the client saw in the answer (for rows that ended ok). */
  input?: number;
  output?: number;
}

let seq = 0;
const nextId = (kind: string) => `usage-${kind}-${++seq}`;

/** Reads an SSE body whole and returns the usage the native events reported. */
function nativeUsage(text: string): { input?: number; output?: number } {
  let input: number | undefined;
  let output: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith('data: ')) continue;
    const data = JSON.parse(line.slice(6)) as {
      type?: string;
      message?: { usage?: { input_tokens?: number } };
      usage?: { output_tokens?: number };
    };
    if (data.type === 'message_start') input = data.message?.usage?.input_tokens;
    if (data.type === 'message_delta') output = data.usage?.output_tokens ?? output;
  }
  return { input, output };
}

async function okRequest(url: string, path: string, stream: boolean): Promise<Sent> {
  const id = nextId('ok');
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: body(stream),
  });
  const text = await res.text();
  expect(res.status, text).toBe(200);
  if (stream) return { id, expect: 'ok', ...nativeUsage(text) };
  const json = JSON.parse(text) as { usage: { input_tokens: number; output_tokens: number } };
  return { id, expect: 'ok', input: json.usage.input_tokens, output: json.usage.output_tokens };
}

async function failedRequest(url: string, path: string, stream: boolean, outcome: Outcome): Promise<Sent> {
  const id = nextId(outcome);
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: body(stream),
  });
  await res.arrayBuffer();
  return { id, expect: outcome };
}

async function invalidBody(url: string, path: string): Promise<Sent> {
  const id = nextId('invalid');
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: '{"model": "x", "messages": [',
  });
  expect(res.status).toBe(400);
  await res.arrayBuffer();
  return { id, expect: 'rejected' };
}

/** Starts a stream, reads its first bytes, then goes away. */
async function goneMidStream(url: string, path: string): Promise<Sent> {
  const id = nextId('gone');
  const abort = new AbortController();
  const res = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: body(true),
    signal: abort.signal,
  });
  const reader = res.body!.getReader();
  await reader.read();
  abort.abort();
  await reader.read().catch(() => undefined);
  return { id, expect: 'client_gone' };
}

async function all<T>(n: number, make: () => Promise<T>, concurrency = 8): Promise<T[]> {
  const out: T[] = [];
  let started = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, n) }, async () => {
      while (started < n) {
        started++;
        out.push(await make());
      }
    }),
  );
  return out;
}

describe('usage ledger in a running proxy', () => {
  it('keeps exactly one row per request with its outcome, and the token sums the upstream reported', async () => {
    const bed = await start(join(dir, 'data-many'));
    const sent: Sent[] = [];
    try {
      sim.reset();
      sim.knobs.replyText = 'one two three four five six seven eight';
      sent.push(...(await all(40 * scale, () => okRequest(bed.url, '/api/v1/messages', true))));
      sent.push(...(await all(40 * scale, () => okRequest(bed.url, '/api/v1/messages', false))));
      sent.push(...(await all(10 * scale, () => okRequest(bed.url, '/v1/messages', false), 4)));
      sent.push(...(await all(5 * scale, () => okRequest(bed.url, '/v1/messages', true), 4)));
      sent.push(...(await all(20 * scale, () => invalidBody(bed.url, '/api/v1/messages'))));
      sent.push(...(await all(10 * scale, () => invalidBody(bed.url, '/v1/messages'))));

      sim.knobs.failWith = { status: 500 };
      sent.push(...(await all(20 * scale, () => failedRequest(bed.url, '/api/v1/messages', false, 'upstream_error'))));
      sim.knobs.failWith = { status: 429, retryAfter: 1 };
      sent.push(...(await all(10 * scale, () => failedRequest(bed.url, '/api/v1/messages', true, 'upstream_error'))));
      sim.reset();
      sim.knobs.streamFault = 'truncate';
      sent.push(...(await all(10 * scale, () => failedRequest(bed.url, '/api/v1/messages', true, 'upstream_error'))));
      sim.knobs.streamFault = 'reset';
      sent.push(...(await all(10 * scale, () => failedRequest(bed.url, '/api/v1/messages', true, 'upstream_error'))));
      sim.reset();
      sim.knobs.replyText = 'one two three four five six seven eight';
      sim.knobs.chunkIntervalMs = 40;
      sent.push(...(await all(30 * scale, () => goneMidStream(bed.url, '/api/v1/messages'))));
      sim.reset();

      // client_gone rows are written when the proxy sees the socket close: give them a moment.
      const deadline = Date.now() + 5000;
      while (bed.ledger.summary(0, Date.now() + 1000, 'mode').total.requests < sent.length && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
    } finally {
      await bed.stop();
    }

    const ledger = UsageLedger.open({ dataDir: join(dir, 'data-many'), retentionDays: 36_500, maxMb: 64 });
    try {
      const rows = new Map<string, { outcome: Outcome; input: number | null; output: number | null; count: number }>();
      for await (const line of ledger.exportCsv(0, Date.now() + 1000)) {
        const cells = line.trimEnd().split(',');
        if (cells[0] === 'started_at') continue;
        const id = cells[1];
        const seen = rows.get(id);
        rows.set(id, {
          outcome: cells[10] as Outcome,
          input: cells[12] === '' ? null : Number(cells[12]),
          output: cells[13] === '' ? null : Number(cells[13]),
          count: (seen?.count ?? 0) + 1,
        });
      }
      expect(rows.size).toBe(sent.length);
      const wrong = sent
        .filter((s) => rows.get(s.id)?.outcome !== s.expect || rows.get(s.id)?.count !== 1)
        .map((s) => ({ ...s, row: rows.get(s.id) }));
      expect(wrong).toEqual([]);
      const ok = sent.filter((s) => s.expect === 'ok');
      const sum = (
        pick: (x: { input?: number | null; output?: number | null }) => number | null | undefined,
        xs: Array<{ input?: number | null; output?: number | null }>,
      ) => xs.reduce((n, x) => n + (pick(x) ?? 0), 0);
      const okRows = ok.map((s) => rows.get(s.id)!);
      expect(sum((x) => x.input, ok)).toBeGreaterThan(0);
      expect(sum((x) => x.input, okRows)).toBe(sum((x) => x.input, ok));
      expect(sum((x) => x.output, okRows)).toBe(sum((x) => x.output, ok));
      // Not one broken stream says ok.
      expect(sent.filter((s) => s.expect !== 'ok' && rows.get(s.id)?.outcome === 'ok')).toEqual([]);
    } finally {
      ledger.close();
    }
  });

  it('shows an answered request with its tokens to any read that follows, and keeps it over shutdown', async () => {
    const bed = await start(join(dir, 'data-at-once'), false);
    try {
      sim.reset();
      const sent = await okRequest(bed.url, '/api/v1/messages', false);
      const page = (await (await fetch(`${bed.url}/usage/requests?limit=1`, owner)).json()) as {
        requests: Array<Record<string, unknown>>;
      };
      expect(page.requests[0]).toMatchObject({
        request_id: sent.id,
        mode: 'direct',
        outcome: 'ok',
        input_tokens: sent.input,
        output_tokens: sent.output,
      });
      // Shutdown writes the ledger's last rows.
      const second = await okRequest(bed.url, '/api/v1/messages', true);
      await bed.proxy.close(500);
      expect(bed.ledger.requests().rows.find((r) => r.requestId === second.id)).toMatchObject({
        outcome: 'ok',
        tokens: { input: second.input, output: second.output },
      });
    } finally {
      await bed.stop();
    }
  });

  it('shows the quota windows of one direct-mode answer at once, and after a restart', async () => {
    const dataDir = join(dir, 'data-limits');
    sim.reset();
    sim.knobs.quotaHeaders = {
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-5h-utilization': '0.18',
      'anthropic-ratelimit-unified-5h-reset': '1795400158',
      'anthropic-ratelimit-unified-5h-status': 'allowed',
      'anthropic-ratelimit-unified-7d-utilization': '0.23',
      'anthropic-ratelimit-unified-7d-reset': '1795734958',
      'anthropic-ratelimit-unified-7d-status': 'allowed_warning',
    };
    const expected = [
      {
        source: 'direct',
        window: 'five_hour',
        utilization: 0.18,
        resets_at: 1795400158,
        status: 'allowed',
        length_seconds: 18000,
      },
      {
        source: 'direct',
        window: 'seven_day',
        utilization: 0.23,
        resets_at: 1795734958,
        status: 'allowed_warning',
        length_seconds: 604800,
      },
    ];
    const first = await start(dataDir);
    try {
      const before = (await (await fetch(`${first.url}/usage/limits`, owner)).json()) as { windows: unknown[] };
      expect(before.windows).toEqual([]);
      const res = await fetch(`${first.url}/api/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body(false),
      });
      expect(res.status).toBe(200);
      // Forwarded unchanged to the client as well.
      expect(res.headers.get('anthropic-ratelimit-unified-5h-utilization')).toBe('0.18');
      await res.arrayBuffer();
      const after = (await (await fetch(`${first.url}/usage/limits`, owner)).json()) as {
        windows: Array<Record<string, unknown>>;
      };
      // Each window also carries its pace (docs/usage.md "Endpoints": GET /usage/limits), checked in
      // usage-lanes.test.ts.
      expect(after.windows).toMatchObject(expected);
      const metrics = await first.proxy.services.metrics.registry.metrics();
      expect(metrics).toContain('assistant_proxy_quota_utilization{source="direct",window="five_hour"} 0.18');
    } finally {
      await first.stop();
    }
    sim.reset();
    const second = await start(dataDir);
    try {
      const again = (await (await fetch(`${second.url}/usage/limits`, owner)).json()) as {
        windows: Array<Record<string, unknown>>;
      };
      expect(again.windows).toMatchObject(expected);
      // The proxy's own endpoints are not traffic it carries: only the one chat is in the ledger.
      const page = (await (await fetch(`${second.url}/usage/requests`, owner)).json()) as {
        requests: Array<{ route: string; outcome: string }>;
      };
      expect(page.requests.map((r) => [r.route, r.outcome])).toEqual([['/api/v1/messages', 'ok']]);
    } finally {
      await second.stop();
    }
  });

  it('reads the quota windows from the compatible direct route too, and records each model as the client named it', async () => {
    sim.reset();
    sim.knobs.quotaHeaders = {
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-5h-utilization': '0.31',
      'anthropic-ratelimit-unified-5h-reset': '1795400158',
      'anthropic-ratelimit-unified-5h-status': 'allowed',
    };
    const bed = await start(join(dir, 'data-compat-limits'));
    try {
      const chat = (path: string, id: string, payload: unknown) =>
        fetch(`${bed.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-request-id': id },
          body: JSON.stringify(payload),
        });
      const compat = await chat('/api/v1/chat/completions', 'compat-limits-1', {
        model,
        max_tokens: 20,
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      expect(compat.status).toBe(200);
      await compat.json();
      const limits = (await (await fetch(`${bed.url}/usage/limits`, owner)).json()) as {
        windows: Array<Record<string, unknown>>;
      };
      expect(limits.windows).toEqual([
        expect.objectContaining({ source: 'direct', window: 'five_hour', utilization: 0.31 }),
      ]);

      // Tool mode resolves a listed id to the CLI's model; the ledger keeps the id the client sent.
      const tool = await chat('/v1/messages', 'tool-model-1', {
        model,
        max_tokens: 20,
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      expect(tool.status).toBe(200);
      await tool.json();
      bed.ledger.flush();
      const row = (await (await fetch(`${bed.url}/usage/requests/tool-model-1`, owner)).json()) as {
        model_requested?: string;
        model_served?: string;
      };
      expect(row.model_requested).toBe(model);
    } finally {
      await bed.stop();
    }
  });

  it('keeps the redacted bodies of a request for the inspector when capture is on', async () => {
    sim.reset();
    const bed = await start(join(dir, 'data-capture'), true);
    try {
      const secret = 'sk-ant-api03-NOTAREALKEY-abcdefghijklmnop';
      const res = await fetch(`${bed.url}/api/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-request-id': 'usage-capture-1', 'x-api-key': secret },
        body: body(false),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const one = (await (await fetch(`${bed.url}/usage/requests/usage-capture-1`, owner)).json()) as {
        captured?: { request: string; response: string; headers: Record<string, string> };
      };
      expect(JSON.parse(one.captured?.request ?? 'null')).toMatchObject({
        model,
        messages: [{ role: 'user', content: 'Say hello' }],
      });
      expect(one.captured?.response).toContain('"usage"');
      expect(one.captured?.headers['x-api-key']).toBe('[redacted]');
      expect(JSON.stringify(one)).not.toContain(secret);
    } finally {
      await bed.stop();
    }
  });
});
