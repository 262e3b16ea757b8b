import { describe, expect, it } from 'vitest';
import { newRequestId } from './request-id.js';

describe('newRequestId', () => {
  it('is req_, the time in milliseconds as 12 hex digits, then the random tail of a version-4 UUID; new each time', () => {
    const ids = new Set<string>();
    const before = Date.now();
    for (let i = 0; i < 1000; i++) {
      const id = newRequestId();
      const m = /^req_([0-9a-f]{12})4[0-9a-f]{3}[89ab][0-9a-f]{15}$/.exec(id);
      expect(m, id).not.toBeNull();
      const at = parseInt(m![1], 16);
      expect(at).toBeGreaterThanOrEqual(before);
      expect(at).toBeLessThanOrEqual(Date.now());
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
  });

  it('sorts in the order the ids were made, so the ledger appends to its index on them', () => {
    const times = [0, 1, 255, 256, 1_795_382_158_000, 1_795_382_158_001, 2 ** 47];
    const ids = times.map((t) => newRequestId(t));
    expect([...ids].sort()).toEqual(ids);
    expect(ids[0].slice(0, 16)).toBe('req_000000000000');
  });
});
