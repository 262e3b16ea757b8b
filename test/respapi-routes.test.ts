// Response-API mode end to end (docs/respapi-mode.md): a client posts chat-form bodies (and response-API bodies) to the
// proxy, which forwards them to the simulator's response API. Assertions are on what the client got back and on
// what the simulator recorded (instructions, bearer, account and session headers).

import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { defaultProfile } from '../src/proxy/profile.js';
import { readSse, writeRespapiCredentials } from './simulator/index.js';
import { chatBody, startRespapiBed, type RespapiBed } from './respapi-bed.js';

const ourPrompt = readFileSync(new URL('../assets/respapi-instructions.md', import.meta.url), 'utf8').trim();
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let bed: RespapiBed;
beforeAll(async () => {
  bed = await startRespapiBed();
});
afterAll(async () => {
  await bed?.close();
});
beforeEach(() => {
  bed.sim.reset();
});

const upstream = () => bed.sim.requests('/respapi/responses');
const tokens = () => JSON.parse(readFileSync(bed.credPath, 'utf8')).tokens as Record<string, string>;

describe('POST /respapi/responses with a chat-form body (docs/interface.md "Response-API request")', () => {
  it('answers the final response with usage, and the upstream saw our prompt, the bearer and the headers', async () => {
    const res = await bed.post('/respapi/responses', {
      model: 'rm-4',
      messages: [
        { role: 'system', content: 'Answer in French.' },
        { role: 'user', content: 'Say hello' },
        { role: 'assistant', content: 'Bonjour' },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(res.status).toBe(200);
    const sessionId = res.headers.get('x-proxy-session-id');
    expect(sessionId).toMatch(uuid);
    const body = await res.json();
    expect(body).toMatchObject({
      object: 'response',
      status: 'completed',
      model: 'rm-4',
      output: [
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi from the response API!' }] },
      ],
    });
    expect(body.usage.output_tokens).toBe(5);
    expect(body.usage.input_tokens).toBeGreaterThan(0);
    expect(body.usage.total_tokens).toBe(body.usage.input_tokens + 5);

    const [rec] = upstream();
    expect(rec.headers.authorization).toBe(`Bearer ${tokens().access_token}`);
    expect(rec.headers[defaultProfile.respapi.accountHeader]).toBe('acct-sim-1');
    expect(rec.headers[defaultProfile.respapi.sessionHeader]).toBe(sessionId);
    for (const [k, v] of Object.entries(defaultProfile.respapi.extraHeaders))
      expect(rec.headers[k.toLowerCase()]).toBe(v);
    expect(rec.json).toEqual({
      model: defaultProfile.respapi.modelMap['rm-4'],
      instructions: `${ourPrompt}\n\nAnswer in French.`,
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Bonjour' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Again' }] },
      ],
      store: false,
      stream: true,
    });
  });

  it('generates a new session id for every request and lists them in /health/detailed', async () => {
    const a = await bed.post('/respapi/responses', chatBody());
    const b = await bed.post('/respapi/responses', chatBody());
    const [idA, idB] = [a.headers.get('x-proxy-session-id'), b.headers.get('x-proxy-session-id')];
    expect(idA).toMatch(uuid);
    expect(idB).toMatch(uuid);
    expect(idA).not.toBe(idB);
    expect(upstream().map((r) => r.headers.session_id)).toEqual([idA, idB]);
    const health = await (await fetch(`${bed.proxy.url}/health/detailed`, { headers: bed.proxy.owner })).json();
    const sessions = health.components.respapi_sessions;
    expect(sessions.sessions.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining([idA, idB]));
    expect(JSON.stringify(sessions)).not.toContain(tokens().access_token);
  });

  it('drops parameters the upstream refuses, names them in a header and logs a warning', async () => {
    const res = await bed.post('/respapi/responses', chatBody({ temperature: 0.2, max_tokens: 50, user: 'me' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')?.split(', ').sort()).toEqual([
      'max_tokens',
      'temperature',
      'user',
    ]);
    const sent = upstream()[0].json as Record<string, unknown>;
    for (const p of defaultProfile.respapi.unsupportedParams) expect(sent).not.toHaveProperty(p);
    expect(sent).not.toHaveProperty('user');
    const warning = bed.proxy.logs().find((l) => l.msg?.toString().includes('not forwarded'));
    expect(warning?.ignored).toEqual(expect.arrayContaining(['temperature', 'max_tokens']));
  });

  it('404 model_not_found for a model outside the rm- list, without calling upstream', async () => {
    const res = await bed.post('/respapi/responses', chatBody({ model: 'assistant-sonnet-4-20250514' }));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      error: {
        message: expect.stringContaining('rm-4, rm-4-turbo, rm-3.5-turbo'),
        type: 'invalid_request_error',
        param: 'model',
        code: 'model_not_found',
      },
    });
    expect(upstream()).toHaveLength(0);
  });

  it('maps every rm- id to its upstream name and shows the neutral id back', async () => {
    for (const { id } of defaultProfile.respapiModels) {
      const res = await bed.post('/respapi/responses', chatBody({ model: id }));
      expect((await res.json()).model).toBe(id);
    }
    expect(upstream().map((r) => (r.json as { model: string }).model)).toEqual(
      defaultProfile.respapiModels.map((m) => defaultProfile.respapi.modelMap[m.id]),
    );
  });

  it.each([
    [{ model: 'rm-4' }, 'messages'],
    [{ model: 'rm-4', messages: [] }, 'messages'],
    [{ messages: [{ role: 'user', content: 'x' }] }, 'model'],
    [chatBody({ max_tokens: -1 }), 'max_tokens'],
    [chatBody({ stream: 'yes' }), 'stream'],
    [chatBody({ input: 'also' }), 'messages'],
    [{ model: 'rm-4', messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.role'],
    [{ model: 'rm-4', messages: [{ role: 'system', content: 'only a system prompt' }] }, 'messages'],
  ])('400 in the compat shape for an invalid body %#', async (body, param) => {
    const res = await bed.post('/respapi/responses', body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_request_error',
      param,
    });
    expect(upstream()).toHaveLength(0);
  });
});

describe('POST /respapi/:session_id/responses', () => {
  it("reuses the path's session id across requests and counts them", async () => {
    for (let i = 0; i < 2; i++) {
      const res = await bed.post('/respapi/proj-42_a.b:c/responses', chatBody());
      expect(res.status).toBe(200);
      expect(res.headers.get('x-proxy-session-id')).toBe('proj-42_a.b:c');
    }
    expect(upstream().map((r) => r.headers.session_id)).toEqual(['proj-42_a.b:c', 'proj-42_a.b:c']);
    const health = await (await fetch(`${bed.proxy.url}/health/detailed`, { headers: bed.proxy.owner })).json();
    const entry = health.components.respapi_sessions.sessions.find((s: { id: string }) => s.id === 'proj-42_a.b:c');
    expect(entry).toMatchObject({ origin: 'path', requests: 2 });
  });

  it.each(['bad%20id', '-leading', 'a%0D%0Ax-evil:1', 'x'.repeat(129), 'a%2Fb'])(
    '400 for an unsafe session id %s',
    async (id) => {
      const res = await bed.post(`/respapi/${id}/responses`, chatBody());
      expect(res.status).toBe(400);
      expect((await res.json()).error).toMatchObject({ param: 'session_id', code: 'invalid_request_error' });
      expect(upstream()).toHaveLength(0);
    },
  );
});

describe('response-API bodies', () => {
  it('keeps the client instructions after ours and forwards the other fields', async () => {
    const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hello there' }] }];
    const res = await bed.post('/respapi/s1/responses', {
      model: 'rm-4-turbo',
      instructions: 'Be terse.',
      input,
      reasoning: { effort: 'low' },
    });
    expect(res.status).toBe(200);
    expect(upstream()[0].json).toEqual({
      model: defaultProfile.respapi.modelMap['rm-4-turbo'],
      instructions: `${ourPrompt}\n\nBe terse.`,
      input,
      reasoning: { effort: 'low' },
      store: false,
      stream: true,
    });
  });

  it('works with the official OpenAI SDK, streaming and not', async () => {
    const client = new OpenAI({ baseURL: `${bed.proxy.url}/respapi`, apiKey: 'dummy' });
    const resp = await client.responses.create({ model: 'rm-4', input: 'Say hello', instructions: 'Short answers.' });
    expect(resp.output_text).toBe('Hi from the response API!');
    expect(resp.usage?.output_tokens).toBe(5);
    const stream = await client.responses.create({ model: 'rm-4', input: 'Say hello', stream: true });
    let text = '';
    let completed = false;
    for await (const ev of stream) {
      if (ev.type === 'response.output_text.delta') text += ev.delta;
      if (ev.type === 'response.completed') completed = ev.response.model === 'rm-4';
    }
    expect(text).toBe('Hi from the response API!');
    expect(completed).toBe(true);
    expect((upstream()[0].json as { instructions: string }).instructions).toBe(`${ourPrompt}\n\nShort answers.`);
  });
});

describe('streaming', () => {
  it('passes upstream events through as they arrive, chunk by chunk', async () => {
    bed.sim.knobs.chunkIntervalMs = 40;
    const res = await bed.post('/respapi/responses', chatBody({ stream: true }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('x-proxy-session-id')).toMatch(uuid);
    const events = await readSse(res);
    const names = events.map((e) => e.event);
    expect(names[0]).toBe('response.created');
    expect(names.at(-1)).toBe('response.completed');
    const deltas = events.filter((e) => e.event === 'response.output_text.delta');
    expect(deltas.map((e) => (e.json as { delta: string }).delta).join('')).toBe('Hi from the response API!');
    // Each paced delta arrived in its own body read: nothing was buffered until the end.
    expect(new Set(deltas.map((e) => e.read)).size).toBe(deltas.length);
    expect(events.at(-1)?.json).toMatchObject({ response: { model: 'rm-4', usage: { output_tokens: 5 } } });
  });

  it('aborts the upstream request when the client goes away', async () => {
    bed.sim.knobs.chunkIntervalMs = 200;
    bed.sim.knobs.respapiReplyText = 'one two three four five six seven eight nine ten';
    const abort = new AbortController();
    const res = await bed.post('/respapi/responses', chatBody({ stream: true }), { signal: abort.signal });
    const reader = res.body!.getReader();
    let seen = '';
    while (!seen.includes('response.output_text.delta')) seen += new TextDecoder().decode((await reader.read()).value);
    abort.abort();
    await expect.poll(() => upstream()[0]?.aborted, { timeout: 3000 }).toBe(true);
  });

  it('ends a broken upstream stream with an error event', async () => {
    bed.sim.knobs.streamFault = 'reset';
    const events = await readSse(await bed.post('/respapi/responses', chatBody({ stream: true })));
    const last = events.at(-1)!;
    expect(last.event).toBe('error');
    expect(last.json).toMatchObject({ type: 'error', code: 'bad_gateway' });
  });

  it('503 for a non-streaming request whose upstream reported overload inside its stream', async () => {
    bed.sim.knobs.streamFault = 'error';
    const res = await bed.post('/respapi/responses', chatBody());
    expect(res.status).toBe(503);
    expect((await res.json()).error).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringMatching(/Overloaded/),
    });
  });

  it('502 for a non-streaming request whose upstream stream was cut', async () => {
    bed.sim.knobs.streamFault = 'truncate';
    const res = await bed.post('/respapi/responses', chatBody());
    expect(res.status).toBe(502);
    expect((await res.json()).error.message).toMatch(/ended before the response completed/);
  });
});

describe('upstream errors in the compatible shape (docs/interface.md "Compatible errors")', () => {
  it('403 insufficient_quota with the subscription hint when the plan lacks access', async () => {
    bed.sim.knobs.respapiNoSubscription = true;
    const res = await bed.post('/respapi/responses', chatBody());
    expect(res.status).toBe(403);
    expect(res.headers.get('x-proxy-session-id')).toMatch(uuid);
    const err = (await res.json()).error;
    expect(err).toMatchObject({ code: 'insufficient_quota', type: 'permission_error' });
    expect(err.message).toContain(defaultProfile.respapi.subscriptionHint);
  });

  it('429 keeps Retry-After', async () => {
    bed.sim.knobs.respapiFailWith = { status: 429, retryAfter: 7 };
    const res = await bed.post('/respapi/responses', chatBody({ stream: true }));
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect((await res.json()).error.code).toBe('rate_limit_exceeded');
  });

  it.each([500, 503, 529] as const)('upstream %i is a 503 service_unavailable', async (status) => {
    bed.sim.knobs.respapiFailWith = { status };
    const res = await bed.post('/respapi/responses', chatBody());
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('service_unavailable');
  });

  it('never logs a token', async () => {
    await bed.post('/respapi/responses', chatBody());
    const t = tokens();
    expect(bed.proxy.logText()).not.toContain(t.access_token);
    expect(bed.proxy.logText()).not.toContain(t.refresh_token);
  });
});

describe('settings', () => {
  it('401 with the login remedy when the credential file is missing', async () => {
    const p = await bed.anotherProxy({ respapiCredentialsPath: join(bed.dir, 'nope.json') });
    const res = await fetch(`${p.url}/respapi/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody()),
    });
    expect(res.status).toBe(401);
    const err = (await res.json()).error;
    expect(err.code).toBe('invalid_api_key');
    expect(err.message).toContain(defaultProfile.respapi.loginHint);
    expect(upstream()).toHaveLength(0);
  });

  it('503 when the token endpoint cannot be reached to refresh an expired login', async () => {
    const path = await writeRespapiCredentials(bed.dir, {
      fileName: 'expired.json',
      accessExp: Math.floor(Date.now() / 1000) - 5,
    });
    const p = await bed.anotherProxy({
      respapiCredentialsPath: path,
      respapiOauthTokenUrl: 'http://127.0.0.1:1/token',
    });
    const res = await fetch(`${p.url}/respapi/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody()),
    });
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe('service_unavailable');
    expect(upstream()).toHaveLength(0);
  });

  it('reads the instruction prompt from RESPAPI_INSTRUCTIONS_PATH, and names the setting when it is missing', async () => {
    const file = join(bed.dir, 'prompt.md');
    await writeFile(file, 'Custom house prompt.\n');
    const p = await bed.anotherProxy({ respapiInstructionsPath: file });
    const send = () =>
      fetch(`${p.url}/respapi/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chatBody()),
      });
    expect((await send()).status).toBe(200);
    expect((upstream()[0].json as { instructions: string }).instructions).toBe('Custom house prompt.');
    await writeFile(file, 'Edited prompt.');
    await send();
    expect((upstream()[1].json as { instructions: string }).instructions).toBe('Edited prompt.');
    const q = await bed.anotherProxy({ respapiInstructionsPath: join(bed.dir, 'missing.md') });
    const res = await fetch(`${q.url}/respapi/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody()),
    });
    expect(res.status).toBe(500);
    expect((await res.json()).error.message).toContain('RESPAPI_INSTRUCTIONS_PATH');
  });

  it('504 when the upstream does not start answering in time; an error event when it goes silent mid-stream', async () => {
    const p = await bed.anotherProxy({ upstreamFirstByteTimeoutMs: 150, upstreamIdleTimeoutMs: 150 });
    const send = (body: unknown) =>
      fetch(`${p.url}/respapi/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    bed.sim.knobs.latencyMs = 1000;
    const slow = await send(chatBody());
    expect(slow.status).toBe(504);
    expect((await slow.json()).error).toMatchObject({ code: 'timeout', message: expect.stringContaining('150 ms') });
    bed.sim.knobs.latencyMs = 0;
    bed.sim.knobs.streamFault = 'stall';
    const events = await readSse(await send(chatBody({ stream: true })));
    expect(events.filter((e) => e.event === 'response.output_text.delta').length).toBeGreaterThan(0);
    expect(events.at(-1)).toMatchObject({ event: 'error', json: { code: 'timeout' } });
  });

  it('a non-streaming client that goes away aborts the upstream too', async () => {
    bed.sim.knobs.chunkIntervalMs = 200;
    const abort = new AbortController();
    const pending = bed.post('/respapi/responses', chatBody(), { signal: abort.signal }).catch((e: unknown) => e);
    await expect.poll(() => upstream().length).toBe(1);
    abort.abort();
    await pending;
    await expect.poll(() => upstream()[0].aborted, { timeout: 3000 }).toBe(true);
    await expect
      .poll(() =>
        bed.proxy.logs().some((l) => l.msg === 'request' && l.status === 499 && l.errorType === 'client_disconnected'),
      )
      .toBe(true);
  });

  it('404 naming the setting when the mode is off', async () => {
    const p = await bed.anotherProxy({ modes: ['direct'] });
    const res = await fetch(`${p.url}/respapi/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody()),
    });
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toContain('MODES');
  });
});
