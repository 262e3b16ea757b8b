// requestLog in a minimal Koa app behind requestId: what routes find on ctx.state (the ids, and a signal made on
// demand that fires when the client goes away), one metrics record per request, and a log line only at or above
// the logger's level.

import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { ProxyMetrics } from '../metrics.js';
import type { RequestAbort } from './request-abort.js';
import { requestId } from './request-id.js';
import { isoTime, requestLog } from './request-log.js';
import type { ProxyState } from './state.js';

let server: Server;
let base: string;
let logs: string[] = [];
const metrics = new ProxyMetrics();
const inFlight = new Set<RequestAbort>();
const seen: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  const app = new Koa<ProxyState>();
  app.silent = true;
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logs.push(...String(chunk).split('\n').filter(Boolean));
      cb();
    },
  });
  app.use(requestId());
  app.use(
    requestLog(
      createLogger('warn', sink),
      metrics,
      { add: (a) => inFlight.add(a), delete: (a) => inFlight.delete(a) },
      Date.now,
    ),
  );
  app.use(async (ctx) => {
    const s = ctx.state;
    seen.push({
      requestId: s.requestId,
      family: s.family,
      mode: s.mode,
      route: s.route,
      startedAt: typeof s.startedAt,
      signal: s.signal instanceof AbortSignal,
      same: s.signal === s.signal,
      aborted: s.signal.aborted,
    });
    if (ctx.path === '/hang') {
      await new Promise((resolve) => s.signal.addEventListener('abort', resolve));
      return;
    }
    if (ctx.path === '/missing') {
      ctx.status = 404;
      ctx.body = { error: 'none' };
      return;
    }
    ctx.body = { ok: true };
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('requestLog', () => {
  it('gives routes the ids requestId set and a working signal; logs nothing below its level', async () => {
    logs = [];
    seen.length = 0;
    const before = metrics.requestsTotal;
    const res = await fetch(`${base}/v1/messages`, { headers: { 'x-request-id': 'abc-1' } });
    expect(res.status).toBe(200);
    await res.text();
    expect(seen).toEqual([
      {
        requestId: 'abc-1',
        family: 'native',
        mode: 'none',
        route: 'unmatched',
        startedAt: 'number',
        signal: true,
        same: true,
        aborted: false,
      },
    ]);
    await expect.poll(() => metrics.requestsTotal).toBe(before + 1);
    expect(metrics.recentRequests()[0]).toMatchObject({
      requestId: 'abc-1',
      status: 200,
      method: 'GET',
      mode: 'none',
      route: 'unmatched',
    });
    expect(logs).toEqual([]);
    expect(inFlight.size).toBe(0);
  });

  it('writes one warn line for a 4xx, with the request fields', async () => {
    logs = [];
    const res = await fetch(`${base}/missing`, { headers: { 'x-request-id': 'abc-2' } });
    expect(res.status).toBe(404);
    await res.text();
    await expect.poll(() => logs.length).toBe(1);
    expect(JSON.parse(logs[0])).toMatchObject({
      level: 40,
      msg: 'request',
      requestId: 'abc-2',
      method: 'GET',
      path: '/missing',
      route: 'unmatched',
      mode: 'none',
      status: 404,
      stream: false,
      clientGone: false,
    });
  });

  it('aborts the signal when the client goes away and records a 499', async () => {
    logs = [];
    const before = metrics.requestsTotal;
    await new Promise<void>((resolve) => {
      const req = request(`${base}/hang`, { headers: { 'x-request-id': 'abc-3' } });
      req.on('error', () => resolve());
      req.end();
      setTimeout(() => {
        req.destroy();
        resolve();
      }, 100);
    });
    await expect.poll(() => metrics.requestsTotal).toBe(before + 1);
    expect(metrics.recentRequests()[0]).toMatchObject({
      requestId: 'abc-3',
      status: 499,
      errorType: 'client_disconnected',
    });
    await expect.poll(() => logs.length).toBe(1);
    expect(JSON.parse(logs[0])).toMatchObject({ level: 40, requestId: 'abc-3', status: 499, clientGone: true });
    expect(inFlight.size).toBe(0);
  });
});

describe('isoTime', () => {
  it('formats exactly as Date#toISOString, within a second, across seconds and at the edges', () => {
    const t = Date.UTC(2026, 10, 23, 3, 4, 5, 0);
    const cases = [
      t,
      t + 1,
      t + 9,
      t + 10,
      t + 99,
      t + 100,
      t + 999,
      t + 1000,
      t + 1001,
      t - 1,
      t + 0.5,
      t + 0.5,
      0,
      -1,
      -500,
      8.64e15,
      -8.64e15,
      253402300800000,
    ];
    for (let i = 0; i < 5000; i++) cases.push(t + Math.floor(i * 7.3));
    for (const ms of cases) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
  });
});
