// Provider faults in direct mode (/api/v1/messages, /api/v1/chat/completions) and response-API mode
// (/respapi/responses), injected with the simulator's knobs: the connection cut before any header or mid-stream, a
// stream that ends early, stalls before and after the headers, a drip slower than the idle deadline, an in-stream
// provider error, and a token endpoint that fails or is slow. Each must end in a clear error in the route's shape
// (test/fuzz/shapes.ts clearErrorProblem), with no provider request left open and the proxy still serving
// (docs/reliability.md "Fault injection").

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { eventually, sendRaw, startBed, type Bed, type RawAnswer } from './fuzz/bed.js';
import { clearErrorProblem, parseSseText, streamError } from './fuzz/shapes.js';
import { writeCliCredentials, writeRespapiCredentials, type SimulatorKnobs } from './simulator/index.js';

const nativeBody = {
  model: 'assistant-sonnet-4-20250514',
  max_tokens: 50,
  messages: [{ role: 'user', content: 'Say hello' }],
};
const respapiBody = { model: 'rm-4', messages: [{ role: 'user', content: 'Say hello' }] };

interface Route {
  name: string;
  path: string;
  body: Record<string, unknown>;
}

const routes: Route[] = [
  { name: 'direct native', path: '/api/v1/messages', body: nativeBody },
  // Not streamed, this asks the provider for one message (max_tokens within profile.api.nonStreamingMaxTokens);
  // the long variant is streamed upstream and collected either way (docs/direct-mode.md).
  { name: 'direct compatible', path: '/api/v1/chat/completions', body: nativeBody },
  { name: 'direct compatible, long', path: '/api/v1/chat/completions', body: { ...nativeBody, max_tokens: 20_000 } },
  { name: 'response API', path: '/respapi/responses', body: respapiBody },
];

interface Fault {
  name: string;
  set(k: SimulatorKnobs): void;
  /**
   * A fault in the middle of an answer. The simulator puts it in a non-streamed message too (docs/testing.md
   * "Faults"), but direct native non-streaming forwards that message byte for byte, so it is only run streamed there.
   */
  streamOnly: boolean;
}

const faults: Fault[] = [
  { name: 'connection reset before headers', set: (k) => void (k.dropBeforeHeaders = true), streamOnly: false },
  { name: 'connection reset mid-stream', set: (k) => void (k.streamFault = 'reset'), streamOnly: true },
  { name: 'stream truncated before its end', set: (k) => void (k.streamFault = 'truncate'), streamOnly: true },
  { name: 'stall before headers', set: (k) => void (k.latencyMs = 60_000), streamOnly: false },
  { name: 'stall after headers', set: (k) => void (k.streamFault = 'stall'), streamOnly: true },
  {
    name: 'drip slower than the idle deadline',
    set: (k) => void Object.assign(k, { chunkIntervalMs: 2_000, jsonChunks: 2 }),
    streamOnly: true,
  },
  { name: 'in-stream provider error', set: (k) => void (k.streamFault = 'error'), streamOnly: true },
];

/** Faults whose fix belongs to the forwarder (src/proxy/backends, modes/direct/forward.ts): skipped until it lands. */
const knownOpen: Record<string, string> = {};

let bed: Bed;

beforeAll(async () => {
  // A per-token estimate small enough that the non-streamed request (max_tokens 50) fits the first-byte deadline,
  // so the one-message path meets every fault too.
  bed = await startBed({
    settings: {
      modes: ['direct', 'respapi'],
      upstreamFirstByteTimeoutMs: 500,
      upstreamIdleTimeoutMs: 400,
      requestTimeoutMs: 10_000,
    },
    profile: { api: { nonStreamingMsPerToken: 1 } },
  });
});

afterAll(async () => {
  await bed?.close();
});

beforeEach(() => {
  bed.sim.reset();
  bed.sim.knobs.replyText = 'one two three four five six seven eight';
});

function post(url: string, path: string, body: unknown): Promise<RawAnswer> {
  return sendRaw(
    url,
    { method: 'POST', path, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
    15_000,
  );
}

/** Nothing left open upstream, and the same route answers normally once the provider is healthy again. */
async function expectRecovered(route: Route, url = bed.proxy.url): Promise<void> {
  expect(await eventually(() => bed.sim.openRequests() === 0, 5_000), 'provider requests left open').toBe(true);
  bed.sim.reset();
  const again = await post(url, route.path, route.body);
  expect(again.status, again.text).toBe(200);
}

describe.each(routes)('$name ($path)', (route) => {
  for (const fault of faults) {
    for (const stream of [false, true]) {
      const applies = stream || !fault.streamOnly || route.path !== '/api/v1/messages';
      if (!applies) continue;
      const skip = knownOpen[`${route.name}|${fault.name}|${stream ? 'stream' : 'json'}`];
      const test = skip ? it.skip : it;
      test(`${fault.name}, ${stream ? 'streamed' : 'not streamed'}: a clear error in the route's shape${skip ? ` (skipped: ${skip})` : ''}`, async () => {
        fault.set(bed.sim.knobs);
        const answer = await post(bed.proxy.url, route.path, { ...route.body, stream });
        expect(clearErrorProblem(route.path, answer)).toBeUndefined();
        expect(bed.sim.requests().length).toBeGreaterThan(0);
        await expectRecovered(route);
      });
    }
  }

  it('a drip within the idle deadline streams the whole answer', async () => {
    bed.sim.knobs.chunkIntervalMs = 100;
    const answer = await post(bed.proxy.url, route.path, { ...route.body, stream: true });
    expect(answer.status).toBe(200);
    const events = parseSseText(answer.text);
    expect(streamError(events)).toBeUndefined();
    const text = route.path.startsWith('/respapi') ? bed.sim.knobs.respapiReplyText : bed.sim.knobs.replyText;
    // Every word arrived, in order, whatever the event format.
    const words = text.split(' ');
    let at = 0;
    for (const w of words) {
      const found = answer.text.indexOf(w, at);
      expect(found, `word ${w}`).toBeGreaterThanOrEqual(0);
      at = found;
    }
  });

  it('a client that goes away mid-stream ends the provider request', async () => {
    bed.sim.knobs.chunkIntervalMs = 200;
    const ac = new AbortController();
    const res = await fetch(bed.proxy.url + route.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...route.body, stream: true }),
      signal: ac.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    expect(bed.sim.openRequests()).toBe(1);
    ac.abort();
    expect(await eventually(() => bed.sim.openRequests() === 0, 5_000)).toBe(true);
    expect(bed.sim.requests().at(-1)?.aborted).toBe(true);
    await expectRecovered(route);
  });
});

describe('token endpoint faults (expired login)', () => {
  it.each([
    ['fails', (k: SimulatorKnobs) => void (k.refreshFail = true)],
    ['is slow', (k: SimulatorKnobs) => void (k.refreshDelayMs = 5_000)],
    ['cuts the connection', (k: SimulatorKnobs) => void (k.dropBeforeHeaders = '/v1/oauth/token')],
  ])('direct mode: the CLI token endpoint %s: a clear error, the credential file unchanged', async (_, set) => {
    const credentialsPath = await writeCliCredentials(join(bed.dir, `expired-${Math.random().toString(36).slice(2)}`), {
      accessToken: 'sk-ant-oat01-expired-0123456789',
      refreshToken: 'sk-ant-ort01-r-0123456789abcdef',
      expiresAt: Date.now() - 60_000,
    });
    const before = await readFile(credentialsPath, 'utf8');
    const { proxy } = await bed.sibling({ credentialsPath });
    set(bed.sim.knobs);
    for (const path of ['/api/v1/messages', '/api/v1/chat/completions']) {
      const answer = await post(proxy.url, path, { ...nativeBody, stream: true });
      expect(clearErrorProblem(path, answer), path).toBeUndefined();
      expect(answer.status).toBeGreaterThanOrEqual(400);
    }
    expect(bed.sim.requests('/v1/messages')).toEqual([]);
    expect(await eventually(() => bed.sim.openRequests() === 0, 8_000)).toBe(true);
    expect(proxy.logText()).not.toContain('sk-ant-ort01-r-0123456789abcdef');
    expect(await readFile(credentialsPath, 'utf8')).toBe(before);
    bed.sim.reset();
    // The token endpoint works again: the next request refreshes and is answered.
    expect((await post(proxy.url, '/api/v1/messages', nativeBody)).status).toBe(200);
  });

  it.each([
    ['fails', (k: SimulatorKnobs) => void (k.respapiRefreshFail = true)],
    ['is slow', (k: SimulatorKnobs) => void (k.refreshDelayMs = 5_000)],
    ['cuts the connection', (k: SimulatorKnobs) => void (k.dropBeforeHeaders = '/respapi-oauth/token')],
  ])('response-API mode: the token endpoint %s: a clear error', async (_, set) => {
    const respapiCredentialsPath = await writeRespapiCredentials(
      join(bed.dir, `expired-${Math.random().toString(36).slice(2)}`),
      { accessExp: Math.floor(Date.now() / 1000) - 60 },
    );
    const { proxy } = await bed.sibling({ respapiCredentialsPath });
    set(bed.sim.knobs);
    const answer = await post(proxy.url, '/respapi/responses', { ...respapiBody, stream: true });
    expect(clearErrorProblem('/respapi/responses', answer)).toBeUndefined();
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(bed.sim.requests('/respapi/responses')).toEqual([]);
    expect(await eventually(() => bed.sim.openRequests() === 0, 8_000)).toBe(true);
    bed.sim.reset();
    expect((await post(proxy.url, '/respapi/responses', respapiBody)).status).toBe(200);
  });
});
