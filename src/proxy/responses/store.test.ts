import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionResponses, ResponseStore, isResponseId, newResponseId, type StoredResponse } from './store.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'store-'));
  dirs.push(d);
  return join(d, 'responses');
}

const record = (id: string, createdAt: number, text = 'x'): StoredResponse => ({
  id,
  createdAt,
  previous: null,
  input: [{ type: 'message', role: 'user', content: text }],
  output: [],
  response: { id },
});

describe('ResponseStore', () => {
  it('makes ids of 192 random bits and refuses any other shape as a path', async () => {
    const a = newResponseId();
    expect(a).toMatch(/^resp_[0-9a-f]{48}$/);
    expect(newResponseId()).not.toBe(a);
    expect(isResponseId('resp_../../etc/passwd')).toBe(false);
    const store = new ResponseStore({ dir: tempDir(), maxAgeMs: 1000, maxBytes: 1 << 20 });
    expect(await store.get('../owner-key')).toBeUndefined();
    expect(store.delete('resp_1')).toBe(false);
  });

  it('ends what is past its time, and the oldest once over its size', async () => {
    let now = 10_000;
    const dir = tempDir();
    const store = new ResponseStore({ dir, maxAgeMs: 5_000, maxBytes: 1000, now: () => now });
    const ids = [newResponseId(), newResponseId(), newResponseId()];
    store.put(record(ids[0], now, 'a'.repeat(200)));
    store.put(record(ids[1], now, 'b'.repeat(200)));
    expect(await store.get(ids[0])).toBeDefined();
    store.put(record(ids[2], now, 'c'.repeat(200)));
    // Three records of about 300 bytes do not fit in 1000: the oldest went.
    expect(await store.get(ids[0])).toBeUndefined();
    expect(await store.get(ids[1])).toBeDefined();
    now += 6_000;
    expect(await store.get(ids[1])).toBeUndefined();
    expect(store.stats().count).toBe(1);
  });

  it('reads back from disk what an earlier run kept', async () => {
    const dir = tempDir();
    const id = newResponseId();
    new ResponseStore({ dir, maxAgeMs: 60_000, maxBytes: 1 << 20 }).put(record(id, Date.now(), 'kept'));
    await new Promise((r) => setTimeout(r, 50));
    writeFileSync(join(dir, 'not-a-response.json'), '{}');
    const later = new ResponseStore({ dir, maxAgeMs: 60_000, maxBytes: 1 << 20 });
    expect((await later.get(id))?.input).toEqual([{ type: 'message', role: 'user', content: 'kept' }]);
    expect(later.stats().count).toBe(1);
  });
});

describe('ConnectionResponses', () => {
  it("finds the connection's own responses first, then the store's, and keeps a bounded number", async () => {
    const store = new ResponseStore({ dir: tempDir(), maxAgeMs: 60_000, maxBytes: 1 << 20 });
    const shared = newResponseId();
    store.put(record(shared, Date.now()));
    const own = new ConnectionResponses(store, 2);
    const ids = [newResponseId(), newResponseId(), newResponseId()];
    for (const id of ids) own.put(record(id, Date.now()));
    expect(await own.get(ids[0])).toBeUndefined();
    expect(await own.get(ids[2])).toBeDefined();
    expect(await own.get(shared)).toBeDefined();
    expect(await store.get(ids[2])).toBeUndefined();
  });
});
