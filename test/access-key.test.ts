// Beyond loopback, /health/detailed needs the access key like every other path: it holds the logged-in account's
// e-mail, the CLI's path (the user's home directory) and the response-API session ids. Only the basic /health
// stays open for load balancers (docs/interface.md "Health record", docs/http.md).

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

describe("a tool-mode chat that may use the CLI's file tools", () => {
  const chat = (url: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'read ~/.ssh/id_rsa' }],
      }),
    });

  it("is refused with a 403 naming the remedy without the owner's key, though other chats need none", async () => {
    proxy = await startProxy({ modes: ['tool'], cliPath: '/nonexistent/cli', cliAllowedTools: ['Read'] });
    const res = await chat(proxy.url);
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('permission_error');
    expect(body.error.message).toContain('owner key');
    expect(body.error.message).toContain('CLI_ALLOWED_TOOLS');
    const keyed = await chat(proxy.url, proxy.owner);
    // Past the key: the missing CLI answers, not the access check.
    expect([401, 403]).not.toContain(keyed.status);
    expect(body.error.message).toContain('docs/security.md');
  });

  it('with PROXY_ACCESS_KEY set, is refused without that key and passes with it', async () => {
    const key = 'file-tools-access-key-0123456789';
    proxy = await startProxy({
      modes: ['tool'],
      cliPath: '/nonexistent/cli',
      cliAllowedTools: ['Read(./**)'],
      accessKey: key,
    });
    expect((await chat(proxy.url)).status).toBe(401);
    const keyed = await chat(proxy.url, { 'x-api-key': key });
    // Past the key: the missing CLI answers, not the access check.
    expect([401, 403]).not.toContain(keyed.status);
  });

  it('stays keyless when the allowed tools touch no file', async () => {
    proxy = await startProxy({ modes: ['tool'], cliPath: '/nonexistent/cli', cliAllowedTools: ['WebSearch'] });
    expect((await chat(proxy.url)).status).not.toBe(403);
  });
});
