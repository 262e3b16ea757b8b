// The outermost error renderer with a route's own error shape (a wire format's, formats/format.ts errorShape):
// once a route set it, a refusal has that body and its type name goes to the log and the ledger; without one, the
// shape of the path's family (docs/interface.md "Errors", the table formats/error-shapes.ts).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import Koa from 'koa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProxyError } from '../errors.js';
import { createLogger } from '../logger.js';
import { familyErrorShapes } from '../formats/error-shapes.js';
import { errorRenderer } from './errors.js';
import { requestId } from './request-id.js';
import type { ProxyState } from './state.js';

let server: Server;
let base: string;
const types: Array<string | undefined> = [];

beforeAll(async () => {
  const app = new Koa<ProxyState>();
  app.silent = true;
  app.use(async (ctx, next) => {
    await next();
    types.push(ctx.state.errorType);
  });
  app.use(requestId());
  app.use(errorRenderer(createLogger('debug', new Writable({ write: (_c, _e, cb) => cb() })), familyErrorShapes));
  app.use(async (ctx) => {
    if (ctx.path === '/own')
      ctx.state.errorShape = {
        family: 'general',
        body: (err) => ({ error: err.message }),
        typeName: (err) => `own_${err.kind}`,
      };
    throw new ProxyError('invalid_request', 'Invalid request: model is required', {
      field: 'model',
      issue: 'is required',
    });
  });
  server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('errorRenderer', () => {
  it("renders a route's own error shape when it set one, and records its type name", async () => {
    const res = await fetch(`${base}/own`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'Invalid request: model is required' });
    expect(types.at(-1)).toBe('own_invalid_request');
  });

  it("renders the family's shape otherwise", async () => {
    const res = await fetch(`${base}/compat/v1/x`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: {
        message: 'Invalid request: model is required',
        type: 'invalid_request_error',
        param: 'model',
        code: 'invalid_request_error',
      },
    });
    expect(types.at(-1)).toBe('invalid_request_error');
  });
});
