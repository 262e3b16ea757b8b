import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from '../../../test/helpers/proxy.js';
import { isLoopbackHostname, parseHost } from './host-guard.js';

// [Host header, what the guard decides with ALLOWED_HOSTS=devbox.local]
const table: Array<[string, 'loopback' | 'allowed' | 'foreign' | 'malformed']> = [
  ['localhost', 'loopback'],
  ['localhost:8000', 'loopback'],
  ['LOCALHOST:8000', 'loopback'],
  ['localhost.', 'loopback'],
  ['app.localhost:3000', 'loopback'],
  ['127.0.0.1', 'loopback'],
  ['127.0.0.1:1', 'loopback'],
  ['127.0.0.1:65535', 'loopback'],
  ['127.10.20.30:8000', 'loopback'],
  ['[::1]', 'loopback'],
  ['[::1]:8000', 'loopback'],
  ['[0:0:0:0:0:0:0:1]:8000', 'loopback'],
  ['[::ffff:127.0.0.1]:8000', 'loopback'],
  ['devbox.local', 'allowed'],
  ['devbox.local:9000', 'allowed'],
  ['attacker.com', 'foreign'],
  ['localhost.attacker.com', 'foreign'],
  ['127.0.0.1.nip.io', 'foreign'],
  ['10.0.0.5:8000', 'foreign'],
  // A page can reach a loopback-bound server through http://0.0.0.0:PORT on Linux and macOS; its Host says so.
  ['0.0.0.0:8000', 'foreign'],
  ['[::]:8000', 'foreign'],
  ['[::2]:8000', 'foreign'],
  ['[fe80::1]', 'foreign'],
  ['evil-localhost', 'foreign'],
  // Lenient parsers read these as loopback; an exact parse refuses them.
  ['[::1].attacker.com', 'malformed'],
  ['127.0.0.1:80.attacker.com', 'malformed'],
  ['localhost:evil', 'malformed'],
  ['localhost:', 'malformed'],
  ['localhost:0', 'malformed'],
  ['localhost:65536', 'malformed'],
  ['localhost:123456', 'malformed'],
  ['localhost:+80', 'malformed'],
  ['localhost:80:80', 'malformed'],
  ['[::1]:', 'malformed'],
  ['[::1]x', 'malformed'],
  ['[::1', 'malformed'],
  ['::1', 'malformed'],
  ['[localhost]', 'malformed'],
  ['[fe80::1%25eth0]', 'malformed'],
  ['127.0.0.256', 'malformed'],
  ['127.1', 'malformed'],
  ['127.000.0.1', 'malformed'],
  ['0x7f000001', 'malformed'],
  ['2130706433', 'malformed'],
  ['user@localhost', 'malformed'],
  ['localhost/evil', 'malformed'],
  ['local host', 'malformed'],
  ['-localhost', 'malformed'],
  ['localhost..', 'malformed'],
  ['.localhost', 'malformed'],
  ['', 'malformed'],
];

function decide(header: string, allowed: string[]): 'loopback' | 'allowed' | 'foreign' | 'malformed' {
  const parsed = parseHost(header);
  if (!parsed) return 'malformed';
  if (isLoopbackHostname(parsed)) return 'loopback';
  return allowed.includes(parsed.hostname) ? 'allowed' : 'foreign';
}

describe('parseHost (exact host[:port])', () => {
  it.each(table)('%j is %s', (header, expected) => {
    expect(decide(header, ['devbox.local'])).toBe(expected);
  });

  it('gives the port as a number and IPv6 in canonical form', () => {
    expect(parseHost('[0:0:0:0:0:0:0:1]:8080')).toEqual({ hostname: '::1', kind: 'ipv6', port: 8080 });
    expect(parseHost('Example.COM')).toEqual({ hostname: 'example.com', kind: 'name', port: undefined });
  });
});

/** A raw request, so the test controls the Host header byte for byte. */
function rawStatus(url: string, host: string): Promise<{ status: number; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: '/v1/models', headers: { host }, setHost: false },
      (res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('the running proxy', () => {
  let proxy: TestProxy;
  beforeAll(async () => {
    proxy = await startProxy({ allowedHosts: ['devbox.local'] });
  });
  afterAll(() => proxy?.close());

  it.each(table.filter(([h]) => h !== ''))('answers Host %j as %s', async (header, expected) => {
    const res = await rawStatus(proxy.url, header);
    if (expected === 'loopback' || expected === 'allowed') {
      expect(res.status).toBe(200);
    } else {
      expect(res.status).toBe(403);
      // /v1/models is a native-format route: docs/interface.md "Native errors" shape.
      expect(JSON.parse(res.body)).toMatchObject({
        type: 'error',
        error: { type: 'permission_error', details: { field: 'host' } },
      });
    }
  });
});
