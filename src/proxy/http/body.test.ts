// jsonBody in a minimal Koa app with the proxy's own request-id and error-renderer middleware, so each refusal is
// seen as a client sees it: status, family-shaped body (docs/interface.md "Errors"), and what happens to the
// connection.

import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { defaultMaxJsonDepth, depthExceededAt, jsonBody } from './body.js';
import { familyErrorShapes } from '../formats/error-shapes.js';
import { errorRenderer } from './errors.js';
import { requestId } from './request-id.js';
import type { ProxyState } from './state.js';

function deepArrays(depth: number): string {
  return '['.repeat(depth) + ']'.repeat(depth);
}

describe('depthExceededAt', () => {
  it('counts objects and arrays, not brackets inside strings', () => {
    const raw = (s: string) => Buffer.from(s, 'utf8');
    expect(depthExceededAt(raw('{"a":[{"b":[]}]}'), 4)).toBe(-1);
    expect(depthExceededAt(raw('{"a":[{"b":[]}]}'), 3)).toBe(11);
    expect(depthExceededAt(raw(`{"s":"${'['.repeat(1000)}"}`), 2)).toBe(-1);
    expect(depthExceededAt(raw(`{"s":"\\"[[[[", "t":[[[]]]}`), 4)).toBe(-1);
    expect(depthExceededAt(raw(`{"s":"\\\\", "t":[[[]]]}`), 3)).toBe(17);
    expect(depthExceededAt(raw(`{"é":"[[[", "t":{}}`), 2)).toBe(-1);
  });

  it('handles a million levels without recursion', () => {
    expect(depthExceededAt(Buffer.from(deepArrays(1_000_000)), defaultMaxJsonDepth)).toBe(defaultMaxJsonDepth);
  });
});

let server: Server;
let base: string;
let logs = '';

beforeAll(async () => {
  const app = new Koa<ProxyState>();
  app.silent = true;
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs += String(chunk);
      cb();
    },
  });
  app.use(requestId());
  app.use(errorRenderer(createLogger('debug', sink), familyErrorShapes));
  app.use(jsonBody(1024 * 1024, { timeoutMs: 300 }));
  app.use(async (ctx) => {
    ctx.body = { ok: true, keys: Object.keys(ctx.state.body as object) };
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const post = (path: string, body: string) =>
  fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

describe('nesting limit', () => {
  const deepTool = (depth: number) =>
    `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":${deepArrays(depth)}}}]}`;

  it('answers a body nested 10,000 deep with 400 naming the limit, in each family shape', async () => {
    const compat = await post('/compat/v1/chat/completions', deepTool(10_000));
    expect(compat.status).toBe(400);
    const c = (await compat.json()) as { error: { message: string; code: string; param: string } };
    expect(c.error).toMatchObject({ code: 'invalid_request_error', param: 'body' });
    expect(c.error.message).toContain(`limit of ${defaultMaxJsonDepth} levels`);

    const native = await post('/v1/messages', deepTool(10_000));
    expect(native.status).toBe(400);
    expect(await native.json()).toMatchObject({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        details: { field: 'body', issue: `nested deeper than ${defaultMaxJsonDepth} levels` },
      },
    });

    const general = await post('/elsewhere', deepTool(10_000));
    expect(general.status).toBe(400);
    expect(await general.json()).toMatchObject({ error: { type: 'validation_error', details: { field: 'body' } } });
  });

  it('accepts the deepest body within the limit', async () => {
    // The body object itself is level 1, tools 2, [0] 3, function 4; parameters adds the rest.
    const res = await post('/v1/messages', deepTool(defaultMaxJsonDepth - 4));
    expect(res.status).toBe(200);
    expect((await post('/v1/messages', deepTool(defaultMaxJsonDepth - 3))).status).toBe(400);
  });
});

describe('body deadline', () => {
  it('answers 408 in the family shape and closes the connection when the body drips too slowly', async () => {
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    const body = '{"model":"m","messages":[]}';
    socket.write(
      `POST /compat/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    // One byte every 50 ms: the whole body would take 1.35 s, past the 300 ms deadline.
    let i = 0;
    const drip = setInterval(() => {
      if (i < body.length && !socket.destroyed) socket.write(body[i++]);
    }, 50);
    await closed;
    clearInterval(drip);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as {
      error: { code: string; message: string; param: string };
    };
    expect(json.error).toMatchObject({ code: 'timeout', param: 'body' });
    expect(json.error.message).toContain('BODY_TIMEOUT_MS');
    expect(i).toBeLessThan(body.length);
  });

  it('answers 408 when the headers promise a body that never comes', async () => {
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(
      'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"mo',
    );
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toMatchObject({
      type: 'error',
      error: { type: 'timeout_error', details: { field: 'body' } },
    });
  });

  it('still reads a body that arrives in time, and the server keeps serving', async () => {
    const res = await post('/v1/messages', '{"model":"m","messages":[]}');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, keys: ['model', 'messages'] });
    expect(logs).not.toContain('unhandled error');
  });
});

describe('reading the body', () => {
  /** Writes `head` and then each piece after a pause on a raw socket; resolves with what came back when it closes or after `waitMs`. */
  async function rawExchange(
    head: string,
    pieces: string[],
    opts: { pauseMs?: number; destroyAfter?: boolean; waitMs?: number } = {},
  ): Promise<string> {
    const { port } = new URL(base);
    const socket = connect(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (c: Buffer) => (answer += c.toString()));
    socket.on('error', () => undefined);
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write(head);
    for (const piece of pieces) {
      await new Promise((r) => setTimeout(r, opts.pauseMs ?? 5));
      if (!socket.destroyed) socket.write(piece);
    }
    if (opts.destroyAfter) socket.destroy();
    await Promise.race([closed, new Promise((r) => setTimeout(r, opts.waitMs ?? 500))]);
    socket.destroy();
    return answer;
  }
  const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

  it('refuses a declared length over the limit with 413 before a byte of the body is sent', async () => {
    const answer = await rawExchange(
      'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 2000000\r\n\r\n',
      [],
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(answer)).toMatchObject({
      type: 'error',
      error: { type: 'request_too_large', details: { field: 'body', issue: 'larger than 1048576 bytes' } },
    });
  });

  it('refuses a chunked body with 413 once what arrived passes the limit', async () => {
    const piece = `{"pad":"${'x'.repeat(600 * 1024)}`;
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const answer = await rawExchange(
      'POST /compat/v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      [chunk(piece), chunk('x'.repeat(600 * 1024))],
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(bodyOf(answer)).toMatchObject({ error: { param: 'body' } });
  });

  it('reads a body that arrives in many pieces, with or without a length', async () => {
    const body = '{"model":"m","messages":[],"max_tokens":5}';
    const pieces = body.match(/.{1,6}/g)!;
    const withLength = await rawExchange(
      `POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
      pieces,
    );
    expect(withLength).toMatch(/^HTTP\/1\.1 200 /);
    expect(bodyOf(withLength)).toEqual({ ok: true, keys: ['model', 'messages', 'max_tokens'] });
    const chunked = await rawExchange(
      'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n',
      [...pieces.map((p) => `${p.length.toString(16)}\r\n${p}\r\n`), '0\r\n\r\n'],
    );
    expect(chunked).toMatch(/^HTTP\/1\.1 200 /);
    expect(bodyOf(chunked)).toEqual({ ok: true, keys: ['model', 'messages', 'max_tokens'] });
  });

  it('lets go of a client that leaves mid-body, without an unhandled error, and keeps serving', async () => {
    const before = logs.length;
    const answer = await rawExchange(
      'POST /v1/messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n',
      ['{"model":'],
      { destroyAfter: true, waitMs: 100 },
    );
    expect(answer).toBe('');
    await new Promise((r) => setTimeout(r, 50));
    expect(logs.slice(before)).not.toContain('unhandled error');
    const res = await post('/v1/messages', '{"model":"m"}');
    expect(res.status).toBe(200);
  });
});
