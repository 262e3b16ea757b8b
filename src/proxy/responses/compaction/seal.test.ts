import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactionSeal, loadCompactionKey } from './seal.js';

const content = {
  summary: 'The task: fix the parser. Files: src/parse.ts.',
  model: 'assistant-sonnet-4-6',
  created: 1,
};

describe('the compaction seal', () => {
  it('opens what it sealed, and nothing of it reads in the clear', () => {
    const seal = compactionSeal(randomBytes(32));
    const sealed = seal.seal(content);
    expect(sealed).toMatch(/^apc1\.[A-Za-z0-9_-]+$/);
    expect(sealed).not.toContain('parser');
    expect(seal.open(sealed)).toEqual(content);
    // A fresh nonce each time: the same summary never seals to the same text.
    expect(seal.seal(content)).not.toBe(sealed);
  });

  it('opens nothing altered, forged, or sealed with another key', () => {
    const seal = compactionSeal(randomBytes(32));
    const sealed = seal.seal(content);
    const flipped = sealed.slice(0, 20) + (sealed[20] === 'A' ? 'B' : 'A') + sealed.slice(21);
    expect(seal.open(flipped)).toBeUndefined();
    expect(seal.open(compactionSeal(randomBytes(32)).seal(content))).toBeUndefined();
    expect(seal.open('apc1.' + randomBytes(64).toString('base64url'))).toBeUndefined();
    expect(seal.open('gAAAAABpM0Yj-from-another-server')).toBeUndefined();
    expect(seal.open('apc1.')).toBeUndefined();
  });

  it('keeps its key owner-only in the data directory and reads the same key after a restart', () => {
    const dir = join(mkdtempSync(join(tmpdir(), 'seal-')), 'data');
    const key = loadCompactionKey(dir);
    const path = join(dir, 'compaction-key');
    if (process.platform !== 'win32') {
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(statSync(dir).mode & 0o777).toBe(0o700);
    }
    const sealed = compactionSeal(key).seal(content);
    expect(compactionSeal(loadCompactionKey(dir)).open(sealed)).toEqual(content);
    expect(readFileSync(path)).toEqual(key);
  });

  it('refuses a key file of the wrong size rather than replacing it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'seal-'));
    writeFileSync(join(dir, 'compaction-key'), 'short');
    expect(() => loadCompactionKey(dir)).toThrow(/not 32/);
  });
});
