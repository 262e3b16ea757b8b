// RefreshingCredential: one refresh at a time, and a refresh after an upstream 401 that a concurrent read of the
// old file cannot undo.
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
    tokenOf: (c) => c.token,
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
  it('a get() whose file read finishes during a refresh after a refusal cannot make the refresh return the refused token', async () => {
    const { cred, refreshes } = bed();
    const forced = cred.afterRefusal('refused');
    const racing = cred.get();
    expect((await forced).token).toBe('fresh-1');
    expect((await racing).token).toBe('fresh-1');
    expect(refreshes()).toBe(1);
  });

  it('concurrent refusals of one token share one refresh', async () => {
    const { cred, refreshes } = bed();
    const all = await Promise.all(Array.from({ length: 5 }, () => cred.afterRefusal('refused')));
    expect(all.map((c) => c.token)).toEqual(Array(5).fill('fresh-1'));
    expect(refreshes()).toBe(1);
  });
});

describe('RefreshingCredential after a refusal', () => {
  function counting(onDisk: { token: string; exp: number }) {
    let refreshes = 0;
    const disk = { current: onDisk };
    const cred = new RefreshingCredential<Cred>({
      read: async () => ({ ...disk.current }),
      tokenOf: (c) => c.token,
      expiresAt: (c) => c.exp,
      refresh: async () => ({ token: `fresh-${++refreshes}`, exp: Date.now() + 3_600_000 }),
      write: async (c) => {
        disk.current = c;
      },
      skewMs: 60_000,
    });
    return { cred, disk, refreshes: () => refreshes };
  }

  it('uses a newer token already on disk (the CLI logged in again) without spending a refresh', async () => {
    const { cred, disk, refreshes } = counting({ token: 'old', exp: Date.now() + 3_600_000 });
    expect((await cred.get()).token).toBe('old');
    disk.current = { token: 'from-cli', exp: Date.now() + 3_600_000 };
    expect((await cred.afterRefusal('old')).token).toBe('from-cli');
    expect(refreshes()).toBe(0);
  });

  it('send: a refused answer is discarded, the credential refreshed once and the request sent once more', async () => {
    const { cred, refreshes } = counting({ token: 'revoked', exp: Date.now() + 3_600_000 });
    const sent: string[] = [];
    const discarded: string[] = [];
    const answer = await cred.send(
      async (c) => {
        sent.push(c.token);
        return { status: c.token === 'revoked' ? 401 : 200, token: c.token };
      },
      (a) => a.status === 401,
      async (a) => void discarded.push(a.token),
    );
    expect(answer).toEqual({ status: 200, token: 'fresh-1' });
    expect(sent).toEqual(['revoked', 'fresh-1']);
    expect(discarded).toEqual(['revoked']);
    expect(refreshes()).toBe(1);
  });

  it('send: a second refusal is returned to the caller, not retried again', async () => {
    const { cred } = counting({ token: 'a', exp: Date.now() + 3_600_000 });
    let calls = 0;
    const answer = await cred.send(
      async () => ({ status: 401, n: ++calls }),
      (a) => a.status === 401,
      async () => undefined,
    );
    expect(answer).toEqual({ status: 401, n: 2 });
  });
});
