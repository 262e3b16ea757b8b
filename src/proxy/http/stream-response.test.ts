// The one stream set-up, through both framings a route can ask for: status, headers, each event encoded by its
// framing, Nagle off, and the route's generator ended (its `finally` run) when the client goes away mid-stream.

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendNdjson } from './ndjson.js';
import { encodeSse, sendSse, type SseEvent } from './sse.js';
import type { ProxyState } from './state.js';

let server: Server;
let base: string;
let noDelay = 0;
let ended: () => void = () => undefined;

async function* events(): AsyncGenerator<SseEvent> {
  yield { event: 'message_start', data: { type: 'message_start' } };
  yield { data: 'line one\nline two' };
  yield { data: '[DONE]' };
}

async function* endless(): AsyncGenerator<SseEvent> {
  try {
    for (let i = 0; ; i++) {
      yield { data: { i } };
      await new Promise((r) => setImmediate(r));
    }
  } finally {
    ended();
  }
}

beforeAll(async () => {
  const app = new Koa<ProxyState>();
  app.silent = true; // the client that leaves mid-stream is a "premature close" Koa would print
  app.use(async (ctx) => {
    const setNoDelay = ctx.req.socket.setNoDelay.bind(ctx.req.socket);
    ctx.req.socket.setNoDelay = (on?: boolean) => ((noDelay += on ? 1 : 0), setNoDelay(on));
    const extra = { 'x-extra': 'yes' };
    if (ctx.path === '/sse') sendSse(ctx as never, events(), extra);
    else if (ctx.path === '/ndjson') sendNdjson(ctx as never, events(), extra);
    else sendSse(ctx as never, endless());
  });
  server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('sendStream through its framings', () => {
  it('SSE: event-stream headers, each event encoded by encodeSse, Nagle off', async () => {
    noDelay = 0;
    const res = await fetch(`${base}/sse`);
    expect(res.status).toBe(200);
    expect(Object.fromEntries(res.headers)).toMatchObject({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
      'x-extra': 'yes',
    });
    const text = await res.text();
    expect(text).toBe(
      'event: message_start\ndata: {"type":"message_start"}\n\ndata: line one\ndata: line two\n\ndata: [DONE]\n\n',
    );
    const all: SseEvent[] = [];
    for await (const e of events()) all.push(e);
    expect(text).toBe(all.map(encodeSse).join(''));
    expect(noDelay).toBe(1);
  });

  it('NDJSON: its content type, one line per event without event names, the same headers otherwise', async () => {
    noDelay = 0;
    const res = await fetch(`${base}/ndjson`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/x-ndjson');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('x-accel-buffering')).toBe('no');
    expect(res.headers.get('x-extra')).toBe('yes');
    expect(await res.text()).toBe('{"type":"message_start"}\nline one\nline two\n[DONE]\n');
    expect(noDelay).toBe(1);
  });

  it("ends the route's generator when the client goes away mid-stream", async () => {
    const finished = new Promise<void>((resolve) => (ended = resolve));
    await new Promise<void>((resolve, reject) => {
      const req = request(`${base}/endless`, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', reject).end();
    });
    await finished;
  });
});
