// The Responses WebSocket (docs/responses-socket.md), driven as Codex drives it (the shapes of its recorded
// messages, test/fixtures/codex-socket/; Codex itself runs in test/agents/codex-socket.test.ts): the upgrade with the beta header, the prewarm answered without a provider call,
// turns that chain on the socket with store:false, the events of the HTTP stream as text frames, an `error` frame
// carrying the status of a refused response with the connection left open, the guards at the upgrade (Host,
// Origin, access key, rate limit), one ledger row per response, a client that goes mid-answer, and a proxy that
// goes. Direct mode against the provider simulator, tool mode against the fake CLI.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { Client } from './helpers/responses-socket-client.js';
import { startToolBed, waitFor, type ToolBed } from './helpers/tool-proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';
import type { UsageRecord } from '../src/proxy/usage/types.js';

const model = 'assistant-sonnet-4-20250514';
const refusal = (url: string, headers: Record<string, string>) =>
  Client.open(url, headers).then(
    (c) => {
      c.close();
      return 101;
    },
    (err: { status?: number }) => err.status ?? 0,
  );

describe('direct mode: the socket on /api/v1/responses', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let dir: string;
  const rows: UsageRecord[] = [];
  beforeAll(async () => {
    sim = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'responses-socket-'));
    const credentialsPath = await writeCliCredentials(dir, {
      accessToken: 'sk-ant-oat01-socket-file-abcdef123456',
      refreshToken: 'sk-ant-ort01-x-abcdef123456',
      expiresAt: Date.now() + 3_600_000,
    });
    proxy = await startProxy(
      { apiBaseUrl: sim.url, credentialsPath, oauthTokenUrl: sim.cliTokenUrl, modes: ['direct'] },
      { usage: { record: (row) => rows.push(row), upstreamHeaders: () => {}, cliRateLimit: () => {} } },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    sim.reset();
    rows.length = 0;
  });

  it('answers the prewarm without a provider call, then chains turns on the socket with store:false', async () => {
    const client = await Client.open(`${proxy.url}/api/v1/responses`);
    // The client offered permessage-deflate (ws does by default, as Codex does); a local socket is answered without.
    expect(client.ws.extensions).toBe('');
    const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Hello?' }] }];
    const warm = await client.create({ input, store: false, stream: true, generate: false });
    expect(warm.map((f) => f.type)).toEqual(['response.created', 'response.completed']);
    expect(sim.requests('/v1/messages')).toHaveLength(0);

    const first = await client.create({ input: [], store: false, previous_response_id: warm[1].response!.id });
    expect(first[0].type).toBe('response.created');
    expect(first.map((f) => f.type)).toContain('response.output_text.delta');
    const done = first.at(-1)!;
    expect(done.type).toBe('response.completed');
    const second = await client.create({
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And then?' }] }],
      store: false,
      previous_response_id: done.response!.id,
    });
    expect(second.at(-1)!.type).toBe('response.completed');
    const sent = sim.requests('/v1/messages').map((r) => (r.json as { messages: unknown[] }).messages);
    expect(sent.map((m) => m.length)).toEqual([1, 3]);
    client.close();
    // store:false: nothing outlives the socket.
    expect((await fetch(`${proxy.url}/api/v1/responses/${done.response!.id}`)).status).toBe(404);
    // One ledger row per answered response, each with its lane; the handshake and the prewarm have none.
    expect(await waitFor(() => rows.length === 2)).toBe(true);
    expect(rows.map((r) => [r.route, r.status])).toEqual([
      ['/api/v1/responses', 200],
      ['/api/v1/responses', 200],
    ]);
    for (const row of rows) expect(row.billingLane).not.toBeUndefined();
  });

  it('refuses a response with an error frame carrying its status, and keeps the connection for the next', async () => {
    const client = await Client.open(`${proxy.url}/api/v1/responses`);
    const refused = await client.create({ input: 'x', previous_response_id: 'resp_gone' });
    expect(refused).toEqual([
      {
        type: 'error',
        status: 400,
        error: expect.objectContaining({ code: 'previous_response_not_found', type: 'invalid_request_error' }),
        headers: {},
      },
    ]);
    const bad = await client.create({ input: [{ type: 'function_call_output', output: 'x' }] });
    expect(bad[0]).toMatchObject({ type: 'error', status: 400 });
    const ok = await client.create({ input: 'Hello?' });
    expect(ok.at(-1)!.type).toBe('response.completed');
    client.ws.send('not json');
    await waitFor(() => client.frames.at(-1)?.type === 'error');
    expect(client.frames.at(-1)).toMatchObject({ type: 'error', status: 400 });
    client.close();
  });

  it('keeps a response the socket did not say store:false for, readable over HTTP', async () => {
    const client = await Client.open(`${proxy.url}/api/v1/responses`);
    const kept = (await client.create({ input: 'Keep me.' })).at(-1)!;
    client.close();
    const read = await fetch(`${proxy.url}/api/v1/responses/${kept.response!.id}`);
    expect(read.status).toBe(200);
    expect(((await read.json()) as { id: string }).id).toBe(kept.response!.id);
  });

  it('counts a response whose client went mid-answer, and ends its provider request', async () => {
    sim.knobs.chunkIntervalMs = 200;
    try {
      const client = await Client.open(`${proxy.url}/api/v1/responses`);
      client.ws.send(JSON.stringify({ type: 'response.create', model, input: 'Hello?' }));
      await waitFor(() => client.frames.some((f) => f.type === 'response.output_text.delta'), 10_000);
      client.ws.terminate();
      expect(await waitFor(() => rows.length === 1, 10_000)).toBe(true);
      expect(rows[0]).toMatchObject({ route: '/api/v1/responses', status: 200, errorType: 'client_disconnected' });
      expect(await waitFor(() => sim.requests('/v1/messages')[0]?.aborted === true, 5_000)).toBe(true);
    } finally {
      sim.knobs.chunkIntervalMs = 0;
    }
  });

  it('runs the guards at the upgrade: Host, Origin, and a plain GET is told to upgrade', async () => {
    const url = `${proxy.url}/api/v1/responses`;
    expect(await refusal(url, { host: 'evil.test' })).toBe(403);
    expect(await refusal(url, { origin: 'https://evil.test' })).toBe(403);
    const plain = await fetch(url);
    expect(plain.status).toBe(426);
    expect(await refusal(`${proxy.url}/respapi/responses`, {})).toBeGreaterThanOrEqual(400);
    expect(sim.requests('/v1/messages')).toHaveLength(0);
  });
});

describe('the socket under an access key and a rate limit', () => {
  let proxy: TestProxy;
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed({}, { accessKey: 'socket-key-abcdef123456', rateLimitPerMinute: 1, rateLimitBurst: 1 });
    proxy = bed.proxy;
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('needs the key to open, and refuses the response over the limit with a 429 frame', async () => {
    const url = `${proxy.url}/v1/responses`;
    expect(await refusal(url, {})).toBe(401);
    const client = await Client.open(url, { authorization: 'Bearer socket-key-abcdef123456' });
    const first = await client.create({ input: 'Hello?' });
    expect(first.at(-1)!.type).toBe('response.completed');
    const limited = await client.create({ input: 'Hello?' });
    expect(limited[0]).toMatchObject({ type: 'error', status: 429, error: { code: 'rate_limit_exceeded' } });
    expect(limited[0]).toHaveProperty('headers.retry-after');
    client.close();
  });
});

describe('tool mode: the socket on /v1/responses', () => {
  let bed: ToolBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });
  const chatRecords = async (b: ToolBed) => (await b.cli.records()).filter((r) => r.argv.includes('-p'));

  it("continues the CLI process that answered the socket's previous response, with store:false", async () => {
    const b = (bed = await startToolBed({}, { cliLiveMax: 4 }));
    const client = await Client.open(`${b.url}/v1/responses`);
    const one = await client.create({ input: 'one', store: false });
    const two = await client.create({ input: 'two', store: false, previous_response_id: one.at(-1)!.response!.id });
    expect(two.at(-1)!.type).toBe('response.completed');
    const records = await chatRecords(b);
    expect(records).toHaveLength(1);
    expect(records[0].turns).toEqual(['one', 'two']);
    client.close();
  });

  it('frees the CLI child when the client goes mid-answer, and closes with 1001 when the proxy goes', async () => {
    const b = (bed = await startToolBed({ tokenDelayMs: 300, reply: 'a slow answer of several words' }));
    const gone = await Client.open(`${b.url}/v1/responses`);
    gone.ws.send(JSON.stringify({ type: 'response.create', model, input: 'Hello?' }));
    await waitFor(() => gone.frames.some((f) => f.type === 'response.output_text.delta'), 10_000);
    const children = async () =>
      (
        (await (await fetch(`${b.url}/health/detailed`, { headers: b.proxy.owner })).json()) as {
          components: { cli_children: { children: number } };
        }
      ).components.cli_children.children;
    expect(await children()).toBe(1);
    gone.ws.terminate();
    expect(await waitFor(async () => (await children()) === 0, 10_000)).toBe(true);

    const staying = await Client.open(`${b.url}/v1/responses`);
    await b.proxy.close();
    await waitFor(() => staying.closeCode !== undefined);
    expect(staying.closeCode).toBe(1001);
  });
});
