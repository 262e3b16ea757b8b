// An error answer carries only the proxy's headers: when the provider's non-streamed answer breaks off while it is
// read, none of the provider's headers (its content-length, its request id) go out on our error (docs/direct-mode.md).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';

let upstream: Server;
let proxy: TestProxy;

beforeAll(async () => {
  // A provider that promises 2,000 bytes of JSON, sends 20, and hangs up.
  upstream = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, {
        'content-type': 'application/json',
        'content-length': '2000',
        'x-provider-marker': 'from-the-provider',
      });
      res.write('{"id":"msg_1","type"');
      setTimeout(() => res.socket?.destroy(), 20);
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  const port = (upstream.address() as AddressInfo).port;
  proxy = await startProxy({ apiBaseUrl: `http://127.0.0.1:${port}`, modes: ['direct'] });
});
afterAll(async () => {
  await proxy?.close();
  await new Promise((r) => upstream.close(r));
});

describe('direct mode, a non-streamed answer cut off while read', () => {
  it('is our error, in the native shape, without the provider headers', async () => {
    const res = await fetch(`${proxy.url}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-ant-api03-a-real-looking-key-0123456789' },
      body: JSON.stringify({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 5,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(res.status).toBeGreaterThanOrEqual(500);
    expect(res.headers.get('x-provider-marker')).toBeNull();
    const body = (await res.json()) as { type: string; error: { type: string } };
    expect(body.type).toBe('error');
  });
});
