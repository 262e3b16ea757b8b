import { describe, expect, it } from 'vitest';
import { clientBaseUrl, isLoopbackHost, isWildcardHost, sdkBaseUrls } from './endpoints.js';
import { modeNames } from './modes.js';

describe('endpoints shared by the proxy, the tray and the window', () => {
  it('tells loopback hosts, with or without brackets', () => {
    for (const h of ['localhost', 'LOCALHOST', '127.0.0.1', '127.1.2.3', '::1', '[::1]'])
      expect(isLoopbackHost(h), h).toBe(true);
    for (const h of ['0.0.0.0', '::', '[::]', '192.168.1.2', 'fe80::1', 'localhost.example', '128.0.0.1'])
      expect(isLoopbackHost(h), h).toBe(false);
  });

  it('tells wildcard binds: 0.0.0.0, :: and [::]', () => {
    for (const h of ['0.0.0.0', '::', '[::]']) expect(isWildcardHost(h), h).toBe(true);
    for (const h of ['127.0.0.1', '::1', '[::1]', '192.168.1.2']) expect(isWildcardHost(h), h).toBe(false);
  });

  it('gives the base URL a client on this machine uses', () => {
    expect(clientBaseUrl({ host: '127.0.0.1', port: 8000 })).toBe('http://127.0.0.1:8000');
    expect(clientBaseUrl({ host: '0.0.0.0', port: 8000 })).toBe('http://127.0.0.1:8000');
    expect(clientBaseUrl({ host: '::', port: 8001 })).toBe('http://127.0.0.1:8001');
    expect(clientBaseUrl({ host: '[::]', port: 8001 })).toBe('http://127.0.0.1:8001');
    expect(clientBaseUrl({ host: '::1', port: 8002 })).toBe('http://[::1]:8002');
    expect(clientBaseUrl({ host: '[::1]', port: 8002 })).toBe('http://[::1]:8002');
    expect(clientBaseUrl({ host: 'localhost', port: 9 })).toBe('http://localhost:9');
  });

  it('labels each base URL with the SDK that takes it as it is: the native ones without /v1', () => {
    expect(sdkBaseUrls('http://127.0.0.1:8000', ['tool', 'direct', 'respapi']).map((b) => [b.label, b.url])).toEqual([
      ['native SDK (tool mode)', 'http://127.0.0.1:8000'],
      ['OpenAI SDK (tool mode)', 'http://127.0.0.1:8000/compat/v1'],
      ['native SDK, direct mode', 'http://127.0.0.1:8000/api'],
      ['OpenAI SDK, direct mode', 'http://127.0.0.1:8000/api/v1'],
      ['OpenAI SDK, response API', 'http://127.0.0.1:8000/respapi'],
    ]);
    expect(sdkBaseUrls('http://[::1]:9', ['direct']).map((b) => b.url)).toEqual([
      'http://[::1]:9/api',
      'http://[::1]:9/api/v1',
    ]);
  });

  it('lists every mode in menu order', () => {
    expect(modeNames).toEqual(['tool', 'direct', 'respapi']);
  });
});
