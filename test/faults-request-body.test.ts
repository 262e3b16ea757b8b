// Hostile request bodies against the running proxy (docs/security.md "Another local user or process"): JSON nested far
// deeper than any real schema, in each of the places later code used to re-serialise recursively, and bodies that
// arrive a byte at a time.

import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultMaxJsonDepth } from '../src/proxy/http/body.js';
import { sendRaw, startBed, type Bed } from './fuzz/bed.js';
import { errorAnswerProblem } from './fuzz/shapes.js';

let bed: Bed;

beforeAll(async () => {
  bed = await startBed({ settings: { bodyTimeoutMs: 500 } });
});

afterAll(async () => {
  await bed?.close();
});

/** `{"a":{"a":...}}` nested `depth` objects deep, as text (a value this deep cannot be built and stringified safely). */
function deepObject(depth: number): string {
  return '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
}

const model = 'assistant-sonnet-4-20250514';
const deep = deepObject(10_000);
const messages = '[{"role":"user","content":"hi"}]';

// Each body puts the deep value where one of the recursive re-serialisers used to meet it.
const bodies: Array<[string, string, string]> = [
  [
    'compat tools[0].function.parameters (direct)',
    '/api/v1/chat/completions',
    `{"model":"${model}","messages":${messages},"tools":[{"type":"function","function":{"name":"f","parameters":${deep}}}]}`,
  ],
  [
    'native tools[0].input_schema (direct)',
    '/api/v1/messages',
    `{"model":"${model}","max_tokens":10,"messages":${messages},"tools":[{"name":"f","input_schema":${deep}}]}`,
  ],
  [
    'a tool_use block input (tool mode)',
    '/v1/messages',
    `{"model":"${model}","max_tokens":10,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":${deep}}]},{"role":"user","content":"go on"}]}`,
  ],
  [
    'response_format.json_schema (tool mode, compatible)',
    '/compat/v1/chat/completions',
    `{"model":"${model}","messages":${messages},"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":${deep}}}}`,
  ],
  [
    'an input item (response API)',
    '/respapi/responses',
    `{"model":"rm-4","input":[{"role":"user","content":[{"type":"input_text","text":"hi"}],"extra":${deep}}]}`,
  ],
  ['an unknown top-level key (response API)', '/respapi/responses', `{"model":"rm-4","input":"hi","unknown":${deep}}`],
];

describe('JSON nested 10,000 deep', () => {
  it.each(bodies)('in %s: 400 in the route family shape naming the limit', async (_, path, body) => {
    const answer = await sendRaw(bed.proxy.url, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(answer.status, answer.text).toBe(400);
    expect(errorAnswerProblem(path, 'POST', answer)).toBeUndefined();
    expect(answer.text).toContain(`limit of ${defaultMaxJsonDepth} levels`);
    expect(bed.sim.requests().filter((r) => r.body.length > 50_000)).toEqual([]);
  });

  it('a real-world schema depth passes: 40 schema levels in a compat tool', async () => {
    let schema = '{"type":"string"}';
    for (let i = 0; i < 40; i++) schema = `{"type":"object","properties":{"p":${schema}}}`;
    const body = `{"model":"${model}","messages":${messages},"tools":[{"type":"function","function":{"name":"f","parameters":${schema}}}]}`;
    const answer = await sendRaw(bed.proxy.url, {
      method: 'POST',
      path: '/api/v1/chat/completions',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(answer.status, answer.text).toBe(200);
  });
});

/** Sends headers and then one byte of the body every `everyMs`; resolves with what came back when the socket closed. */
function drip(
  port: number,
  path: string,
  body: string,
  everyMs: number,
  giveUpMs: number,
): Promise<{ answer: string; sent: number; closedByServer: boolean }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    let closedByServer = true;
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    const timer = setInterval(() => {
      if (sent < body.length && !socket.destroyed) socket.write(body[sent++]);
    }, everyMs);
    const giveUp = setTimeout(() => {
      closedByServer = false;
      socket.destroy();
    }, giveUpMs);
    socket.on('close', () => {
      clearInterval(timer);
      clearTimeout(giveUp);
      resolve({ answer, sent, closedByServer });
    });
    socket.on('error', () => undefined);
  });
}

describe('a body sent a byte at a time', () => {
  const body = JSON.stringify({
    model,
    max_tokens: 10,
    messages: [{ role: 'user', content: 'a slow body that takes several seconds to arrive' }],
  });

  // jsonBody enforces config.bodyTimeoutMs (http/add-route.ts hands it over).
  it('is answered 408 in the family shape at BODY_TIMEOUT_MS, and the connection closed', async () => {
    for (const path of ['/v1/messages', '/compat/v1/chat/completions']) {
      const r = await drip(bed.proxy.port, path, body, 50, 5_000);
      expect(r.closedByServer, path).toBe(true);
      expect(r.answer).toMatch(/^HTTP\/1\.1 408 /);
      expect(r.sent).toBeLessThan(body.length);
    }
  });

  // A route that never reads the body (an unknown path) answers at once; what is still to come is drained by
  // node:http, whose requestTimeout (listen/listeners.ts: a second past the body deadline) closes the connection.
  it('on a path that does not read bodies, the connection is closed within the body deadline', async () => {
    const r = await drip(bed.proxy.port, '/no/such/path', body, 50, 5_000);
    expect(r.answer).toMatch(/^HTTP\/1\.1 404 /);
    expect(r.closedByServer).toBe(true);
  });
});

describe('request heads node:http answers before the proxy sees them', () => {
  // node:http answers an Expect other than 100-continue itself with a bare 417 (no body), unless the server
  // handles 'checkExpectation' (listen/listeners.ts). RFC 9110 §10.1.1 allows the 417, but it should be in the family shape.
  it('an unknown Expect value gets a family-shaped answer', async () => {
    const answer = await sendRaw(bed.proxy.url, { method: 'GET', path: '/v1/models', headers: { expect: 'x-fancy' } });
    expect(answer.status).not.toBe(0);
    expect(errorAnswerProblem('/v1/models', 'GET', answer)).toBeUndefined();
  });

  it('Expect: 100-continue is honoured and the request answered normally', async () => {
    const answer = await sendRaw(bed.proxy.url, {
      method: 'POST',
      path: '/v1/messages',
      headers: { expect: '100-continue', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(answer.status).toBe(400);
    expect(errorAnswerProblem('/v1/messages', 'POST', answer)).toBeUndefined();
  });
});
