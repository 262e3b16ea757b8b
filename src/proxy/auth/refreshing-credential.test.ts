// RefreshingCredential: one refresh at a time, and a forced refresh (after an upstream 401) that a concurrent
// read of the old file cannot undo.
import { describe, expect, it } from 'vitest';
import { RefreshingCredential } from './refreshing-credential.js';

interface Cred {
  token: string;
  exp: number;
}

function bed() {
  let onDisk: Cred = { token: 'refused', exp: Date.now() + 3_600_000 };
  let refreshes = 0;
  // Each file read takes a moment, and later reads may finish first: the n-th read waits (10 - 4n) ms.
  let reads = 0;
  const cred = new RefreshingCredential<Cred>({
    read: () => {
      const delay = Math.max(0, 10 - 4 * reads++);
      return new Promise((resolve) => setTimeout(() => resolve({ ...onDisk }), delay));
    },
    expiresAt: (c) => c.exp,
    refresh: async () => {
      refreshes++;
      return { token: `fresh-${refreshes}`, exp: Date.now() + 3_600_000 };
    },
    write: async (c) => {
      onDisk = c;
    },
    skewMs: 60_000,
  });
  return { cred, refreshes: () => refreshes };
}

describe('RefreshingCredential', () => {
  it('a get() whose file read finishes during a forced refresh cannot make the refresh return the refused token', async () => {
    const { cred, refreshes } = bed();
    const forced = cred.forceRefresh();
    const racing = cred.get();
    expect((await forced).token).toBe('fresh-1');
    expect((await racing).token).toBe('fresh-1');
    expect(refreshes()).toBe(1);
  });

  it('concurrent forced refreshes share one', async () => {
    const { cred, refreshes } = bed();
    const all = await Promise.all(Array.from({ length: 5 }, () => cred.forceRefresh()));
    expect(all.map((c) => c.token)).toEqual(Array(5).fill('fresh-1'));
    expect(refreshes()).toBe(1);
  });
});
