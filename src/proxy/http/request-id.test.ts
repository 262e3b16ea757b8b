import { describe, expect, it } from 'vitest';
import { newRequestId } from './request-id.js';

describe('newRequestId', () => {
  it('is req_ and a version-4 UUID without dashes, new each time', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 1000; i++) {
      const id = newRequestId();
      expect(id).toMatch(/^req_[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
      ids.add(id);
    }
    expect(ids.size).toBe(1000);
  });
});
