import { describe, expect, it } from 'vitest';
import { isProxyError } from '../errors.js';
import { rateLimit } from './rate-limit.js';

/** A minimal Koa-like context: what the middleware reads and writes. */
function ctxFor(ip: string, path = '/v1/messages') {
  const headers: Record<string, string> = {};
  const set = (k: string, v: string) => (headers[k] = v);
  return {
    ip,
    path,
    method: 'POST',
    socket: { remoteAddress: ip },
    headerSent: false,
    set,
    res: { setHeader: set },
    headers,
  };
}

async function attempt(mw: ReturnType<typeof rateLimit>, ip: string, path?: string) {
  const ctx = ctxFor(ip, path);
  let passed = false;
  try {
    await mw(ctx as any, async () => {
      passed = true;
    });
    return { passed, headers: ctx.headers, error: undefined };
  } catch (err) {
    return { passed, headers: ctx.headers, error: err };
  }
}

describe('rateLimit (docs/interface.md "Limits")', () => {
  it('lets perMinute + burst requests through per client in a minute, then refuses with a Retry-After', async () => {
    let t = 1_000_000;
    const mw = rateLimit(3, 2, () => t);
    const results = [];
    for (let i = 0; i < 5; i++) results.push(await attempt(mw, '10.0.0.1'));
    expect(results.every((r) => r.passed)).toBe(true);
    expect(results.map((r) => r.headers['x-ratelimit-remaining'])).toEqual(['4', '3', '2', '1', '0']);
    expect(results[0].headers['x-ratelimit-limit']).toBe('5');
    expect(results[0].headers['x-ratelimit-reset']).toBe(String(Math.ceil((t + 60_000) / 1000)));
    t += 20_000;
    const refused = await attempt(mw, '10.0.0.1');
    expect(refused.passed).toBe(false);
    expect(isProxyError(refused.error) && refused.error.kind).toBe('rate_limit');
    expect((refused.error as any).retryAfter).toBe(40);
    // Another client has its own budget.
    expect((await attempt(mw, '10.0.0.2')).passed).toBe(true);
  });

  it('opens a new steady window a minute after the first request, and never limits health or metrics', async () => {
    let t = 0;
    const mw = rateLimit(1, 0, () => t);
    expect((await attempt(mw, 'a')).passed).toBe(true);
    expect((await attempt(mw, 'a')).passed).toBe(false);
    expect((await attempt(mw, 'a', '/health')).passed).toBe(true);
    expect((await attempt(mw, 'a', '/metrics')).passed).toBe(true);
    t += 60_000;
    expect((await attempt(mw, 'a')).passed).toBe(true);
  });

  it('the burst is spent only after the steady budget, and refills on its own minute', async () => {
    let t = 0;
    const mw = rateLimit(1, 1, () => t);
    expect((await attempt(mw, 'a')).passed).toBe(true); // steady
    t = 30_000;
    expect((await attempt(mw, 'a')).passed).toBe(true); // burst, its window starts now
    expect((await attempt(mw, 'a')).passed).toBe(false);
    t = 61_000; // steady window renewed, burst window still spent until 90 s
    expect((await attempt(mw, 'a')).passed).toBe(true);
    expect((await attempt(mw, 'a')).passed).toBe(false);
    t = 91_000;
    expect((await attempt(mw, 'a')).passed).toBe(true); // burst again
  });
});

describe('rateLimit: the loopback range is one client', () => {
  it('counts 127.0.0.1–127.0.0.9, ::1 and their IPv4-mapped forms on one budget, and says how to raise the limit', async () => {
    const limited: string[] = [];
    const mw = rateLimit(
      4,
      0,
      () => 1_000_000,
      (client) => limited.push(client),
    );
    const from = ['127.0.0.2', '127.0.0.3', '::ffff:127.0.0.9', '::1'];
    for (const ip of from) expect((await attempt(mw, ip)).passed, ip).toBe(true);
    const fifth = await attempt(mw, '127.0.0.5');
    expect(fifth.passed).toBe(false);
    expect(isProxyError(fifth.error) && fifth.error.kind).toBe('rate_limit');
    const message = (fifth.error as Error).message;
    expect(message).toContain('RATE_LIMIT_PER_MINUTE');
    expect(message).toContain("window's Settings");
    expect(message).toContain('all clients on this computer together');
    expect(limited).toEqual(['loopback']);
    // Another machine keeps a budget of its own.
    expect((await attempt(mw, '10.0.0.7')).passed).toBe(true);
  });
});
