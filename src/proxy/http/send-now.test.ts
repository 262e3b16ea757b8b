// sendNow on a real Koa app: the answer is on the wire before the middleware chain unwinds, with the status and
// headers set before it and its length, Koa does not write it twice, and ctx.body still holds it.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { sendNow } from './send-now.js';
import type { ProxyContext } from './types.js';

describe('sendNow', () => {
  it('writes the whole answer before the chain unwinds; Koa then leaves it alone', async () => {
    const seen: { endedWhenUnwound?: boolean; body?: unknown } = {};
    const app = new Koa();
    app.use(async (ctx, next) => {
      ctx.set('x-outer', 'set before next');
      await next();
      seen.endedWhenUnwound = ctx.res.writableEnded;
      seen.body = ctx.body;
    });
    app.use(async (ctx) => {
      ctx.status = 201;
      ctx.type = 'application/json';
      sendNow(ctx as unknown as ProxyContext, Buffer.from('{"a":1}'));
    });
    const server = createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
      expect(res.status).toBe(201);
      expect(res.headers.get('x-outer')).toBe('set before next');
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('content-length')).toBe('7');
      expect(await res.text()).toBe('{"a":1}');
      expect(seen.endedWhenUnwound).toBe(true);
      expect(Buffer.isBuffer(seen.body) && (seen.body as Buffer).toString()).toBe('{"a":1}');
    } finally {
      server.close();
    }
  });
});
