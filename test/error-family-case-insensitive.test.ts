// The router matches paths case-insensitively (so POST /V1/messages is served), but the error
// family was chosen case-sensitively, so such a request got the general §7.3 error shape instead of its format's
// (SPEC.md §7.1/§7.2) and the official SDKs could not read it.

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
  const res = await fetch(proxy.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('error family of a path in another letter case', () => {
  it('answers a native route in the native shape', async () => {
    const { status, body } = await post('/V1/Messages');
    expect(status).toBe(400);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', details: { field: 'model' } } });
  });

  it('answers a compatible route in the compatible shape', async () => {
    const { status, body } = await post('/Compat/V1/chat/completions');
    expect(status).toBe(400);
    expect(body).toMatchObject({ error: { type: 'invalid_request_error', code: 'invalid_request_error', param: 'model' } });
  });
});
