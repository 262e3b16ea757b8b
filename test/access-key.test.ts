// Beyond loopback, /health/detailed needs the access key like every other path: it holds the logged-in account's
// e-mail, the CLI's path (the user's home directory) and the response-API session ids. Only the basic /health
// stays open for load balancers (SPEC.md §4 note 8, docs/http.md).

import { afterEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';

let proxy: TestProxy | undefined;

afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

describe('access key beyond loopback', () => {
  it('keeps /health open but requires the key for /health/detailed', async () => {
    const key = 'review-access-key-0123456789';
    proxy = await startProxy({ host: '0.0.0.0', accessKey: key, modes: ['direct'] });
    const url = `http://127.0.0.1:${proxy.port}`;

    const basic = await fetch(`${url}/health`);
    expect(basic.status).not.toBe(401);

    const anonymous = await fetch(`${url}/health/detailed`);
    expect(anonymous.status).toBe(401);
    const body = (await anonymous.json()) as { error: { type: string }; components?: unknown };
    expect(body.error.type).toBe('authentication_error');
    expect(body.components).toBeUndefined();

    const withKey = await fetch(`${url}/health/detailed`, { headers: { authorization: `Bearer ${key}` } });
    expect(withKey.status).not.toBe(401);
    expect(await withKey.json()).toHaveProperty('components');
  });
});
