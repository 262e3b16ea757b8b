// The error family of a path (route-table.ts) is matched case-insensitively, like the router (so POST /V1/messages
// is served): such a request gets its format's error shape (docs/interface.md "Compatible errors", "Native errors"),
// which the official SDKs read, never the general one.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';

let proxy: TestProxy;

beforeAll(async () => {
  proxy = await startProxy({ modes: ['tool'] });
});

afterAll(async () => {
  await proxy.close();
});

async function post(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(proxy.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('error family of a path in another letter case', () => {
  it('answers a native route in the native shape', async () => {
    const { status, body } = await post('/V1/Messages');
    expect(status).toBe(400);
    expect(body).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', details: { field: 'model' } },
    });
  });

  it('names the field and the reason of a 400 in its log line, as the error body does', async () => {
    await post('/v1/messages');
    const line = proxy.logs().find((l) => l.msg === 'request' && l.path === '/v1/messages' && l.status === 400);
    expect(line).toMatchObject({ level: 40, field: 'model', errorType: 'invalid_request_error' });
    expect(String(line?.reason)).toMatch(/required|expected/i);
  });

  it('answers a compatible route in the compatible shape', async () => {
    const { status, body } = await post('/Compat/V1/chat/completions');
    expect(status).toBe(400);
    expect(body).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_request_error', param: 'model' },
    });
  });
});
