// exactRoutes on a real Koa app and router: a request whose path is exactly a pattern without parameters is
// answered without the router testing every pattern, and every other request gets what the router alone gives
// (parameters, another letter case, a trailing slash, a pattern two routes match, unknown paths).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exactRoutes } from './exact-routes.js';

describe('exactRoutes', () => {
  const router = new Router();
  let routerMatches = 0;
  const match = router.match.bind(router);
  router.match = (path, method) => {
    routerMatches++;
    return match(path, method);
  };
  router.post('/v1/messages', (ctx) => {
    ctx.body = { route: 'messages', matched: ctx._matchedRoute, params: ctx.params };
  });
  router.get('/v1/models', (ctx) => {
    ctx.body = { route: 'models' };
  });
  router.get('/v1/models/:id', (ctx) => {
    ctx.body = { route: 'model', id: ctx.params.id };
  });
  // Two patterns match /v1/things/latest: the router runs the first that answers; so must this.
  router.get('/v1/things/:id', (ctx, next) => {
    if (ctx.params.id === 'latest') return next();
    ctx.body = { route: 'thing', id: ctx.params.id };
  });
  router.get('/v1/things/latest', (ctx) => {
    ctx.body = { route: 'latest' };
  });
  const app = new Koa();
  app.use(exactRoutes(router));
  const server = createServer(app.callback());
  let base = '';
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.close();
  });

  async function call(method: string, path: string): Promise<{ status: number; body: unknown; routerMatches: number }> {
    const before = routerMatches;
    const res = await fetch(base + path, { method });
    const text = await res.text();
    return {
      status: res.status,
      body: text && res.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text,
      routerMatches: routerMatches - before,
    };
  }

  it('answers an exact pattern without the router, with what the router would set', async () => {
    expect(await call('POST', '/v1/messages')).toEqual({
      status: 200,
      body: { route: 'messages', matched: '/v1/messages', params: {} },
      routerMatches: 0,
    });
    expect(await call('GET', '/v1/models')).toMatchObject({ status: 200, body: { route: 'models' }, routerMatches: 0 });
    // HEAD is served by a GET route, as the router does.
    expect(await call('HEAD', '/v1/models')).toMatchObject({ status: 200, routerMatches: 0 });
  });

  it('leaves parameters, another letter case, a trailing slash and shared patterns to the router', async () => {
    expect(await call('GET', '/v1/models/m1')).toMatchObject({
      status: 200,
      body: { route: 'model', id: 'm1' },
      routerMatches: 1,
    });
    expect(await call('POST', '/V1/Messages')).toMatchObject({
      status: 200,
      body: { route: 'messages' },
      routerMatches: 1,
    });
    expect(await call('POST', '/v1/messages/')).toMatchObject({
      status: 200,
      body: { route: 'messages' },
      routerMatches: 1,
    });
    expect(await call('GET', '/v1/things/latest')).toMatchObject({
      status: 200,
      body: { route: 'latest' },
      routerMatches: 1,
    });
    expect(await call('GET', '/v1/things/t1')).toMatchObject({
      status: 200,
      body: { route: 'thing', id: 't1' },
      routerMatches: 1,
    });
  });

  it('leaves a known path with another method, and an unknown path, unanswered, as the router does', async () => {
    expect(await call('GET', '/v1/messages')).toMatchObject({ status: 404, routerMatches: 1 });
    expect(await call('POST', '/v1/nothing')).toMatchObject({ status: 404, routerMatches: 1 });
  });
});
