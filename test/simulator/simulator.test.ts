import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  billingRefusalText,
  decodeJwt,
  makeJwt,
  readSse,
  respapiAuthClaim,
  startSimulator,
  writeCliCredentials,
  writeRespapiCredentials,
  type Simulator,
} from './index.js';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => sim.reset());

const key = { 'x-api-key': 'sk-ant-api03-test', 'content-type': 'application/json' };

function postMessages(body: unknown, headers: Record<string, string> = key, query = ''): Promise<Response> {
  return fetch(`${sim.url}/v1/messages${query}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

const hello = {
  model: 'claude-sonnet-4-20250514',
  max_tokens: 100,
  messages: [{ role: 'user', content: 'say hi please' }],
};

describe('POST /v1/messages, non-streaming', () => {
  it('answers a native message with deterministic usage and pass-through headers', async () => {
    const res = await postMessages({ ...hello, system: 'be brief' }, key, '?beta=true');
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toMatch(/^req_sim_\d+$/);
    expect(res.headers.get('anthropic-ratelimit-requests-remaining')).toBe('49');
    const body = await res.json();
    expect(body).toEqual({
      id: 'msg_sim_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [{ type: 'text', text: 'Hi from the simulator!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      // input: "be brief" + "say hi please" = 5 words; output: 4 word pieces
      usage: {
        input_tokens: 5,
        output_tokens: 4,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
      },
    });
    const [rec] = sim.requests('/v1/messages');
    expect(rec.query).toBe('beta=true');
    expect(rec.headers['x-api-key']).toBe('sk-ant-api03-test');
    expect(rec.json).toMatchObject({ model: 'claude-sonnet-4-20250514' });
    expect(rec.aborted).toBe(false);
  });

  it('jsonChunks sends the same answer chunked, without a content-length; alternate switches answer by answer', async () => {
    const plain = await postMessages(hello, key);
    expect(plain.headers.get('content-length')).not.toBeNull();
    const expected = { ...(await plain.json()), id: 'msg_sim_2' };
    sim.knobs.jsonChunks = 3;
    const chunked = await postMessages(hello, key);
    expect(chunked.headers.get('content-length')).toBeNull();
    expect(chunked.headers.get('transfer-encoding')).toBe('chunked');
    expect(await chunked.json()).toEqual(expected);
    sim.knobs.jsonChunks = 'alternate';
    const framing: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await postMessages(hello, key);
      framing.push(res.headers.get('content-length') === null);
      expect(await res.json()).toMatchObject({
        type: 'message',
        content: [{ type: 'text', text: 'Hi from the simulator!' }],
      });
    }
    expect(framing).toEqual([true, false, true, false]);
  });

  it('cuts at a stop sequence and at max_tokens', async () => {
    sim.knobs.replyText = 'one two three four five';
    const stopped = await (await postMessages({ ...hello, stop_sequences: ['three'] })).json();
    expect(stopped).toMatchObject({
      content: [{ text: 'one two ' }],
      stop_reason: 'stop_sequence',
      stop_sequence: 'three',
    });
    const capped = await (await postMessages({ ...hello, max_tokens: 2 })).json();
    expect(capped).toMatchObject({
      content: [{ text: 'one two ' }],
      stop_reason: 'max_tokens',
      usage: { output_tokens: 2 },
    });
  });

  it('answers tools with tool_use, and a tool_result with its text', async () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }];
    const first = await (await postMessages({ ...hello, tools })).json();
    expect(first.stop_reason).toBe('tool_use');
    expect(first.content).toEqual([
      { type: 'tool_use', id: 'toolu_sim_1', name: 'get_weather', input: { location: 'Paris' } },
    ]);
    const second = await (
      await postMessages({
        ...hello,
        tools,
        messages: [
          ...hello.messages,
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_sim_1', content: [{ type: 'text', text: 'sunny' }] }],
          },
        ],
      })
    ).json();
    expect(second).toMatchObject({
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: 'The tool said: sunny' }],
    });
  });
});

describe('POST /v1/messages, streaming', () => {
  it('sends the provider event sequence, one delta per chunk, in separate reads when paced', async () => {
    sim.knobs.chunkIntervalMs = 25;
    const events = await readSse(await postMessages({ ...hello, stream: true }));
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect((e.json as { type: string }).type).toBe(e.event);
    const deltas = events.filter((e) => e.event === 'content_block_delta');
    expect(deltas.map((e) => (e.json as { delta: { text: string } }).delta.text).join('')).toBe(
      'Hi from the simulator!',
    );
    expect(new Set(deltas.map((e) => e.read)).size).toBe(deltas.length);
    expect(events.find((e) => e.event === 'message_delta')?.json).toMatchObject({
      delta: { stop_reason: 'end_turn' },
      usage: { output_tokens: 4 },
    });
  });

  it('splits the reply into chunkCount pieces', async () => {
    sim.knobs.chunkCount = 2;
    const events = await readSse(await postMessages({ ...hello, stream: true }));
    expect(events.filter((e) => e.event === 'content_block_delta')).toHaveLength(2);
  });

  it('streams tool_use input as input_json_delta pieces after an optional text block', async () => {
    sim.knobs.toolPreamble = 'Let me check.';
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }];
    const events = await readSse(await postMessages({ ...hello, tools, stream: true }));
    const starts = events
      .filter((e) => e.event === 'content_block_start')
      .map((e) => e.json as { content_block: { type: string } });
    expect(starts.map((s) => s.content_block.type)).toEqual(['text', 'tool_use']);
    expect(starts[1]).toMatchObject({ index: 1, content_block: { id: 'toolu_sim_1', name: 'get_weather', input: {} } });
    const pieces = events
      .map((e) => e.json as { delta?: { type: string; partial_json?: string } })
      .filter((j) => j.delta?.type === 'input_json_delta')
      .map((j) => j.delta!.partial_json!);
    expect(pieces.length).toBeGreaterThanOrEqual(2);
    expect(JSON.parse(pieces.join(''))).toEqual({ location: 'Paris' });
    expect(events.find((e) => e.event === 'message_delta')?.json).toMatchObject({ delta: { stop_reason: 'tool_use' } });
  });

  it('truncate ends cleanly after half the deltas without message_stop', async () => {
    sim.knobs.streamFault = 'truncate';
    const events = await readSse(await postMessages({ ...hello, stream: true }));
    expect(events.filter((e) => e.event === 'content_block_delta')).toHaveLength(2);
    expect(events.map((e) => e.event)).not.toContain('message_delta');
    expect(events.map((e) => e.event)).not.toContain('message_stop');
  });

  it('reset makes the client read fail after half the deltas', async () => {
    sim.knobs.streamFault = 'reset';
    const events = await readSse(await postMessages({ ...hello, stream: true }), { tolerateErrors: true });
    expect(events.error).toBeDefined();
    expect(events.filter((e) => e.event === 'content_block_delta')).toHaveLength(2);
    expect(sim.requests('/v1/messages')[0].aborted).toBe(false);
  });

  it('error sends an in-stream overloaded error event', async () => {
    sim.knobs.streamFault = 'error';
    const events = await readSse(await postMessages({ ...hello, stream: true }));
    expect(events.at(-1)).toMatchObject({ event: 'error', json: { error: { type: 'overloaded_error' } } });
  });

  it('stall keeps the stream open, and records the client abort', async () => {
    sim.knobs.streamFault = 'stall';
    const ac = new AbortController();
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ ...hello, stream: true }),
      signal: ac.signal,
    });
    const seen: string[] = [];
    const reading = readSse(res, { onEvent: (e) => seen.push(e.event ?? ''), tolerateErrors: true });
    await new Promise((r) => setTimeout(r, 150));
    expect(seen.filter((e) => e === 'content_block_delta')).toHaveLength(2);
    expect(sim.requests('/v1/messages')[0].aborted).toBe(false);
    ac.abort();
    const events = await reading;
    expect(events.error).toBeDefined();
    await new Promise((r) => setTimeout(r, 50));
    expect(sim.requests('/v1/messages')[0].aborted).toBe(true);
  });

  it('a non-streamed answer meets the same faults: truncate and reset halfway, error as a 200 body', async () => {
    sim.knobs.streamFault = 'truncate';
    const cut = await postMessages(hello);
    expect(cut.status).toBe(200);
    expect(cut.headers.get('content-length')).toBeNull();
    const text = await cut.text();
    expect(text.length).toBeGreaterThan(0);
    expect(() => JSON.parse(text)).toThrow();

    sim.knobs.streamFault = 'reset';
    const reset = await postMessages(hello);
    await expect(reset.text()).rejects.toThrow();

    sim.knobs.streamFault = 'error';
    const error = await postMessages(hello);
    expect(error.status).toBe(200);
    expect(await error.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
  });

  it('a stalled non-streamed answer stays open after half its writes', async () => {
    sim.knobs.streamFault = 'stall';
    const ac = new AbortController();
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify(hello),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(first.value?.length).toBeGreaterThan(0);
    const more = await Promise.race([
      reader.read().then(() => 'more'),
      new Promise((r) => setTimeout(() => r('silent'), 100)),
    ]);
    expect(more).toBe('silent');
    ac.abort();
    await expect.poll(() => sim.requests('/v1/messages')[0].aborted).toBe(true);
  });

  it('close() ends a stalled stream', async () => {
    const other = await startSimulator({ knobs: { streamFault: 'stall' } });
    const res = await fetch(`${other.url}/v1/messages`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ ...hello, stream: true }),
    });
    const reading = readSse(res, { tolerateErrors: true });
    await new Promise((r) => setTimeout(r, 50));
    await other.close();
    const events = await reading;
    expect(events.filter((e) => e.event === 'content_block_delta')).toHaveLength(2);
    expect(other.received[0].aborted).toBe(false);
  });
});

describe('billing knobs', () => {
  const oauth = { authorization: 'Bearer sk-ant-oat01-sim', 'content-type': 'application/json' };

  it('overage sends the unified status and the overage state on every answer', async () => {
    sim.knobs.overage = { inUse: true, utilization: 0.25, resetsAt: 1_800_000_000, disabledReason: undefined };
    const res = await postMessages(hello);
    expect(res.status).toBe(200);
    expect(Object.fromEntries([...res.headers].filter(([k]) => k.startsWith('anthropic-ratelimit-unified-')))).toEqual({
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-overage-status': 'allowed',
      'anthropic-ratelimit-unified-overage-in-use': 'true',
      'anthropic-ratelimit-unified-representative-claim': 'overage',
      'anthropic-ratelimit-unified-overage-utilization': '0.25',
      'anthropic-ratelimit-unified-overage-reset': '1800000000',
    });
    sim.knobs.overage = { inUse: false, disabledReason: 'org_level_disabled' };
    const off = await postMessages(hello);
    expect(off.headers.get('anthropic-ratelimit-unified-overage-status')).toBe('rejected');
    expect(off.headers.get('anthropic-ratelimit-unified-overage-disabled-reason')).toBe('org_level_disabled');
    expect(off.headers.get('anthropic-ratelimit-unified-representative-claim')).toBeNull();
  });

  it('billingRefusal answers 400 in the provider words, always or by what the provider looks at, for `times` requests', async () => {
    sim.knobs.billingRefusal = { reason: 'extra_usage_off', times: 1 };
    const refused = await postMessages(hello);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: billingRefusalText.extra_usage_off },
    });
    expect((await postMessages(hello)).status).toBe(200);

    sim.knobs.billingRefusal = { reason: 'cli_only_credential', when: 'third-party' };
    // A client's own key, and a login whose prompt opens with the CLI's own billing block, are served.
    expect((await postMessages(hello)).status).toBe(200);
    expect(
      (
        await postMessages(
          {
            ...hello,
            system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=1; cc_entrypoint=cli;' }],
          },
          oauth,
        )
      ).status,
    ).toBe(200);
    const other = await postMessages({ ...hello, system: 'You are my app.' }, oauth);
    expect(other.status).toBe(400);
    expect(((await other.json()) as { error: { message: string } }).error.message).toBe(
      billingRefusalText.cli_only_credential,
    );
    // A single-underscore mcp_ tool name is a third-party app's, whatever the credential.
    const tools = [{ name: 'mcp_search', input_schema: { type: 'object' } }];
    expect((await postMessages({ ...hello, tools })).status).toBe(400);
    expect(
      (await postMessages({ ...hello, tools: [{ name: 'mcp__srv__search', input_schema: { type: 'object' } }] }))
        .status,
    ).toBe(200);
  });
});

describe('auth and error knobs', () => {
  it('needs a credential, and only accepted ones when acceptTokens is set', async () => {
    const none = await postMessages(hello, { 'content-type': 'application/json' });
    expect(none.status).toBe(401);
    sim.knobs.acceptTokens = new Set(['sk-ant-oat01-good']);
    const bad = await postMessages(hello, { ...key, 'x-api-key': 'dummy' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    const good = await postMessages(hello, {
      authorization: 'Bearer sk-ant-oat01-good',
      'content-type': 'application/json',
    });
    expect(good.status).toBe(200);
  });

  it('failWith 429 sets retry-after and rate-limit headers, for `times` requests only', async () => {
    sim.knobs.failWith = { status: 429, retryAfter: 7, times: 1 };
    const limited = await postMessages(hello);
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('7');
    expect(limited.headers.get('anthropic-ratelimit-requests-remaining')).toBe('0');
    expect(await limited.json()).toMatchObject({ error: { type: 'rate_limit_error' } });
    expect((await postMessages(hello)).status).toBe(200);
  });

  it('failWith 529 answers overloaded_error until cleared', async () => {
    sim.knobs.failWith = { status: 529 };
    for (let i = 0; i < 2; i++) {
      const res = await postMessages({ ...hello, stream: true });
      expect(res.status).toBe(529);
      expect(await res.json()).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    }
  });

  it('answers 404 for unknown paths and 400 for invalid JSON', async () => {
    expect((await fetch(`${sim.url}/v1/nothing`)).status).toBe(404);
    const res = await fetch(`${sim.url}/v1/messages`, { method: 'POST', headers: key, body: '{nope' });
    expect(res.status).toBe(400);
  });
});

describe('GET /v1/models', () => {
  it("lists a model the profile does not have, then provider model ids made from the profile's", async () => {
    const body = await (await fetch(`${sim.url}/v1/models`, { headers: key })).json();
    expect(body.data[0]).toMatchObject({
      type: 'model',
      id: 'claude-sonnet-4-7',
      display_name: 'Sonnet 4 7',
      max_input_tokens: 1_000_000,
    });
    expect(body.data[1]).toMatchObject({ type: 'model', id: 'claude-opus-5-5', display_name: 'Opus 5 5' });
    expect(body).toMatchObject({
      has_more: false,
      first_id: 'claude-sonnet-4-7',
      last_id: 'claude-3-5-haiku-20241022',
    });
  });
});

describe('token endpoints', () => {
  it('refreshes the CLI token and accepts the new access token', async () => {
    sim.knobs.acceptTokens = ['sk-ant-oat01-old'];
    const res = await fetch(sim.cliTokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'sk-ant-ort01-x', client_id: 'cid' }),
    });
    const body = await res.json();
    expect(body).toMatchObject({
      access_token: 'sk-ant-oat01-sim-1',
      refresh_token: 'sk-ant-ort01-sim-1',
      expires_in: 28800,
    });
    expect(sim.tokenRefreshes).toBe(1);
    const ok = await postMessages(hello, {
      authorization: `Bearer ${body.access_token}`,
      'content-type': 'application/json',
    });
    expect(ok.status).toBe(200);
  });

  it('refuses unknown refresh tokens and refreshFail with invalid_grant', async () => {
    const call = (refresh_token: string): Promise<Response> =>
      fetch(sim.cliTokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', refresh_token, client_id: 'cid' }),
      });
    sim.knobs.validRefreshTokens = new Set(['rt-good']);
    expect((await call('rt-bad')).status).toBe(400);
    expect((await call('rt-good')).status).toBe(200);
    sim.knobs.refreshFail = true;
    const failed = await call('rt-good');
    expect(failed.status).toBe(400);
    expect(await failed.json()).toMatchObject({ error: 'invalid_grant' });
    expect(sim.tokenRefreshes).toBe(3);
  });

  it('refreshes response-API tokens from a form body into JWTs with exp and account id', async () => {
    const res = await fetch(sim.respapiTokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'rt-1', client_id: 'app' }).toString(),
    });
    const body = await res.json();
    expect(body.refresh_token).toBe('rt-sim-1');
    const claims = decodeJwt(body.access_token)!;
    expect((claims.exp as number) - Date.now() / 1000).toBeGreaterThan(3500);
    expect(claims[respapiAuthClaim]).toMatchObject({ chatgpt_account_id: 'acct-sim-1' });
    expect(decodeJwt(body.id_token)).toMatchObject({ email: 'user@example.com' });
    expect(sim.respapiTokenRefreshes).toBe(1);
    sim.knobs.respapiRefreshFail = true;
    const failed = await fetch(sim.respapiTokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'rt-1', client_id: 'app' }),
    });
    expect(failed.status).toBe(400);
  });
});

describe('delays', () => {
  it('refreshDelayMs holds refreshes open (counted on arrival), latencyMs delays the answer', async () => {
    sim.knobs.refreshDelayMs = 100;
    const refresh = (): Promise<Response> =>
      fetch(sim.cliTokenUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'rt', client_id: 'cid' }),
      });
    const pending = [refresh(), refresh(), refresh()];
    await new Promise((r) => setTimeout(r, 40));
    expect(sim.tokenRefreshes).toBe(3);
    const bodies = await Promise.all(pending.map(async (p) => (await p).json()));
    expect(new Set(bodies.map((b) => b.access_token)).size).toBe(3);

    sim.knobs.latencyMs = 80;
    const started = Date.now();
    await postMessages(hello);
    expect(Date.now() - started).toBeGreaterThanOrEqual(75);
  });
});

describe('response API', () => {
  const respBody = {
    model: 'rm-4',
    instructions: 'be nice',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] }],
    stream: true,
  };
  const post = (token: string, body: unknown = respBody, headers: Record<string, string> = {}): Promise<Response> =>
    fetch(`${sim.respapiBaseUrl}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  it('rejects an expired JWT with 401', async () => {
    const res = await post(makeJwt({ exp: Math.floor(Date.now() / 1000) - 10 }));
    expect(res.status).toBe(401);
  });

  it('streams the response events and records session and account headers', async () => {
    sim.knobs.chunkIntervalMs = 5;
    const res = await post(sim.mintRespapiAccessToken(), respBody, {
      session_id: 'sess-1',
      'chatgpt-account-id': 'acct-sim-1',
    });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('response.created');
    expect(names).toContain('response.output_item.added');
    expect(names.filter((n) => n === 'response.output_text.delta')).toHaveLength(5);
    expect(names.slice(-3)).toEqual(['response.content_part.done', 'response.output_item.done', 'response.completed']);
    expect(events.at(-1)?.json).toMatchObject({
      response: {
        object: 'response',
        model: 'rm-4',
        status: 'completed',
        output: [{ type: 'message', content: [{ type: 'output_text', text: 'Hi from the response API!' }] }],
        usage: { input_tokens: 4, output_tokens: 5, total_tokens: 9 },
      },
    });
    const rec = sim.requests('/respapi/responses')[0];
    expect(rec.headers.session_id).toBe('sess-1');
    expect(rec.headers['chatgpt-account-id']).toBe('acct-sim-1');
  });

  it('refuses unsupported parameters, unaccepted tokens and missing subscriptions', async () => {
    const token = sim.mintRespapiAccessToken();
    expect((await post(token, { ...respBody, temperature: 0.5 })).status).toBe(400);
    sim.knobs.respapiAcceptTokens = new Set(['only-this']);
    expect((await post(token)).status).toBe(401);
    sim.knobs.respapiAcceptTokens = new Set();
    sim.knobs.respapiNoSubscription = true;
    expect((await post(token)).status).toBe(403);
  });
});

describe('credential file helpers', () => {
  it('write both credential files with mode 0600', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sim-creds-'));
    try {
      const cli = await writeCliCredentials(dir, { accessToken: 'a', refreshToken: 'r', expiresAt: 123 });
      expect(JSON.parse(await readFile(cli, 'utf8'))).toMatchObject({
        claudeAiOauth: { accessToken: 'a', refreshToken: 'r', expiresAt: 123 },
      });
      expect((await stat(cli)).mode & 0o777).toBe(0o600);
      const exp = Math.floor(Date.now() / 1000) + 60;
      const resp = await writeRespapiCredentials(dir, { accessExp: exp, accountId: 'acct-9' });
      const file = JSON.parse(await readFile(resp, 'utf8'));
      expect(file).toMatchObject({ OPENAI_API_KEY: null, tokens: { account_id: 'acct-9' } });
      expect(decodeJwt(file.tokens.access_token)).toMatchObject({ exp });
      expect((await stat(resp)).mode & 0o777).toBe(0o600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('raw socket behaviour', () => {
  it('flushes each paced delta as its own chunk on the wire', async () => {
    sim.knobs.chunkIntervalMs = 20;
    const chunks = await new Promise<string[]>((resolve, reject) => {
      const req = request(`${sim.url}/v1/messages`, { method: 'POST', headers: key }, (res) => {
        const got: string[] = [];
        res.setEncoding('utf8');
        res.on('data', (c: string) => got.push(c));
        res.on('end', () => resolve(got));
      });
      req.on('error', reject);
      req.end(JSON.stringify({ ...hello, stream: true }));
    });
    const deltaChunks = chunks.filter((c) => c.includes('content_block_delta'));
    expect(deltaChunks.length).toBeGreaterThanOrEqual(4);
    expect(chunks.join('')).toMatch(/^event: message_start\ndata: /);
  });
});

describe('connection faults and open requests (fault-injection knobs)', () => {
  it('dropBeforeHeaders cuts the connection before a status line, on the named path only', async () => {
    sim.knobs.dropBeforeHeaders = '/v1/messages';
    await expect(postMessages(hello)).rejects.toThrow();
    expect((await fetch(`${sim.url}/v1/models`, { headers: key })).status).toBe(200);
    expect(sim.requests('/v1/messages')[0].aborted).toBe(false);
  });

  it('openRequests counts answers not yet closed: a stalled stream until the client goes away', async () => {
    sim.knobs.streamFault = 'stall';
    const ac = new AbortController();
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ ...hello, stream: true }),
      signal: ac.signal,
    });
    const reading = readSse(res, { tolerateErrors: true });
    await new Promise((r) => setTimeout(r, 50));
    expect(sim.openRequests()).toBe(1);
    ac.abort();
    await reading;
    await new Promise((r) => setTimeout(r, 50));
    expect(sim.openRequests()).toBe(0);
  });
});

describe('POST /v1/messages/count_tokens', () => {
  it('counts the words of system and messages, as message usage does', async () => {
    const res = await fetch(`${sim.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ ...hello, system: 'be brief' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ input_tokens: 5 });
  });
});
