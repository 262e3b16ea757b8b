// The one error renderer (docs/principles.md "One error hierarchy"): our own bug is a 500 in the family's shape without
// its stack or message, logged with the stack; an error after headers were sent cannot change the status.

import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterEach, describe, expect, it } from 'vitest';
import { errorRenderer } from '../src/proxy/http/errors.js';
import { familyErrorShapes } from '../src/proxy/formats/error-shapes.js';
import { requestId } from '../src/proxy/http/request-id.js';
import type { ProxyState } from '../src/proxy/http/state.js';
import { ProxyError } from '../src/proxy/errors.js';
import { createLogger } from '../src/proxy/logger.js';

let server: ReturnType<Koa['listen']> | undefined;
afterEach(() => server?.close());

async function serve(handler: Koa.Middleware<ProxyState>) {
  let text = '';
  const sink = new Writable({ write: (c, _e, cb) => ((text += c.toString()), cb()) });
  const app = new Koa<ProxyState>();
  app.silent = true;
  app.use(requestId());
  app.use(errorRenderer(createLogger('info', sink), familyErrorShapes));
  app.use(handler);
  server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server!.once('listening', r));
  const port = (server.address() as { port: number }).port;
  return { url: `http://127.0.0.1:${port}`, logs: () => text };
}

describe('error renderer', () => {
  it('answers our own bug with a 500 in each family shape, never the stack or the message', async () => {
    const { url, logs } = await serve(() => {
      throw new TypeError('secret internal detail at /home/user/.claude');
    });
    const compat = await fetch(`${url}/compat/v1/chat/completions`);
    expect(compat.status).toBe(500);
    const compatBody = await compat.text();
    expect(JSON.parse(compatBody).error).toMatchObject({ code: 'internal_server_error', type: 'server_error' });
    const native = await fetch(`${url}/v1/messages`);
    expect(native.status).toBe(500);
    const nativeBody = await native.text();
    expect(JSON.parse(nativeBody)).toMatchObject({ type: 'error', error: { type: 'internal_server_error' } });
    const general = await fetch(`${url}/health`);
    expect((await general.json()).error.type).toBe('internal_error');
    for (const body of [compatBody, nativeBody]) {
      expect(body).not.toContain('secret internal detail');
      expect(body).not.toMatch(/at .*\.(ts|js):\d+/);
    }
    // The log keeps the stack for the developer.
    expect(logs()).toContain('secret internal detail');
    expect(logs()).toMatch(/TypeError/);
  });

  it('renders a ProxyError with its status, headers, Retry-After and redacted message', async () => {
    const { url } = await serve(() => {
      throw new ProxyError('rate_limit', 'Slow down; the key sk-ant-api03-abcdefghijkl was refused', {
        retryAfter: 7.2,
        headers: { 'x-extra': '1' },
      });
    });
    const res = await fetch(`${url}/v1/messages`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('8');
    expect(res.headers.get('x-extra')).toBe('1');
    const body = await res.json();
    expect(body.error.type).toBe('rate_limit_error');
    expect(body.error.message).not.toContain('sk-ant-api03-abcdefghijkl');
    expect(body.request_id).toBe(res.headers.get('x-request-id'));
  });

  it('leaves a started response alone when an error comes after the headers', async () => {
    const { url, logs } = await serve(async (ctx) => {
      ctx.status = 200;
      ctx.res.write('partial');
      ctx.respond = false;
      setTimeout(() => ctx.res.end(), 50);
      throw new ProxyError('upstream', 'broke mid-way');
    });
    const res = await fetch(`${url}/v1/messages`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('partial');
    await expect.poll(() => logs().includes('error after headers were sent')).toBe(true);
  });
});
