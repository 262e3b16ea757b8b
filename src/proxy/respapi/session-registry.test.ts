// Response-API session ids and the registry that counts and expires them.

import { describe, expect, it } from 'vitest';
import { generateSessionId, isValidSessionId } from './session-id.js';
import { SessionRegistry } from './session-registry.js';

describe('session ids', () => {
  it('accepts safe tokens only', () => {
    for (const ok of ['a', 'abc-123', 'A.b_c:d', 'x'.repeat(128), generateSessionId()])
      expect(isValidSessionId(ok)).toBe(true);
    for (const bad of ['', '-a', '.a', 'a b', 'a/b', 'a\r\nb', 'é', 'x'.repeat(129)])
      expect(isValidSessionId(bad)).toBe(false);
  });
});

describe('SessionRegistry', () => {
  it('counts requests, expires idle sessions and lists the most recent first', () => {
    let now = 1_000_000;
    const reg = new SessionRegistry({ idleMs: 1000, now: () => now });
    reg.touch('a', 'path');
    now += 400;
    reg.touch('b', 'generated');
    now += 400;
    expect(reg.touch('a', 'path')).toMatchObject({ requests: 2, createdAt: 1_000_000, lastUsedAt: 1_000_800 });
    expect(reg.list().map((s) => s.id)).toEqual(['a', 'b']);
    now += 700; // b idle 1100 ms, a idle 700 ms
    expect(reg.snapshot()).toEqual({
      active: 1,
      created_total: 2,
      expired_total: 1,
      idle_lifetime_ms: 1000,
      sessions: [
        {
          id: 'a',
          origin: 'path',
          requests: 2,
          created: new Date(1_000_000).toISOString(),
          last_used: new Date(1_000_800).toISOString(),
          expires: new Date(1_001_800).toISOString(),
        },
      ],
    });
    now += 1000;
    expect(reg.touch('a', 'path')).toMatchObject({ requests: 1, createdAt: now });
  });

  it('is bounded: the least recently used sessions go first', () => {
    const reg = new SessionRegistry({ idleMs: 60_000, maxSessions: 2 });
    reg.touch('a', 'path');
    reg.touch('b', 'path');
    reg.touch('a', 'path');
    reg.touch('c', 'path');
    expect(reg.list().map((s) => s.id)).toEqual(['c', 'a']);
    expect(reg.delete('a')).toBe(true);
    expect(reg.get('a')).toBeUndefined();
  });
});
