import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadOwnerKey } from './owner-key.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'owner-key-'));
  dirs.push(d);
  return d;
}

describe.skipIf(process.platform === 'win32')('loadOwnerKey', () => {
  it('makes a key at first start, owner-only in an owner-only directory, and reads the same key afterwards', () => {
    const dataDir = join(tempDir(), 'data');
    const first = loadOwnerKey(dataDir);
    expect(first.created).toBe(true);
    expect(first.key.length).toBeGreaterThanOrEqual(32);
    expect(statSync(first.path).mode & 0o777).toBe(0o600);
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    const again = loadOwnerKey(dataDir);
    expect(again).toEqual({ key: first.key, path: first.path, created: false });
    expect(loadOwnerKey(join(tempDir(), 'other')).key).not.toBe(first.key);
  });

  it('tightens a key file another user could read, and replaces one too short to be a key', () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'owner-key'), 'a-key-someone-wrote-0123456789\n');
    chmodSync(join(dataDir, 'owner-key'), 0o644);
    expect(loadOwnerKey(dataDir).key).toBe('a-key-someone-wrote-0123456789');
    expect(statSync(join(dataDir, 'owner-key')).mode & 0o777).toBe(0o600);
    writeFileSync(join(dataDir, 'owner-key'), 'short');
    const replaced = loadOwnerKey(dataDir);
    expect(replaced.created).toBe(true);
    expect(readFileSync(replaced.path, 'utf8').trim()).toBe(replaced.key);
  });
});
