// setHeader keeps ctx.set's rules on a real Koa context: nothing after the headers went out, and a header the
// upstream repeated stays one value for a single-value header (Koa's rule) or a list otherwise.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { setHeader } from './set-header.js';
import type { ProxyContext } from './types.js';

async function answer(handler: (ctx: ProxyContext) => void): Promise<Headers> {
  const app = new Koa();
  app.use(async (ctx) => handler(ctx as unknown as ProxyContext));
  const server = createServer(app.callback());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await res.text();
    return res.headers;
  } finally {
    server.close();
  }
}

describe('setHeader', () => {
  it('sets a string, a one-item list as its item, and a longer list as repeated values', async () => {
    const headers = await answer((ctx) => {
      setHeader(ctx, 'x-one', 'a');
      setHeader(ctx, 'x-item', ['b']);
      setHeader(ctx, 'x-list', ['c', 'd']);
      ctx.body = 'ok';
    });
    expect(headers.get('x-one')).toBe('a');
    expect(headers.get('x-item')).toBe('b');
    expect(headers.get('x-list')).toBe('c, d');
  });

  it('does nothing once the headers are sent, like ctx.set', async () => {
    let threw: unknown;
    await answer((ctx) => {
      ctx.res.writeHead(200);
      try {
        setHeader(ctx, 'x-late', 'z');
      } catch (err) {
        threw = err;
      }
      ctx.res.end('done');
      ctx.respond = false;
    });
    expect(threw).toBeUndefined();
  });
});
