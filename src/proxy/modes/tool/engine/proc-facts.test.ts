import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesFingerprint, procRss } from './proc-facts.js';

describe('filesFingerprint', () => {
  it('changes when a file changes or appears, and with the settings', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pool-fp-'));
    const file = join(dir, 'credentials.json');
    const missing = filesFingerprint([file], { a: 1 });
    await writeFile(file, '{"t":1}');
    const present = filesFingerprint([file], { a: 1 });
    expect(present).not.toBe(missing);
    expect(filesFingerprint([file], { a: 2 })).not.toBe(present);
    await writeFile(file, '{"t":22}');
    expect(filesFingerprint([file], { a: 1 })).not.toBe(present);
    expect(await readFile(file, 'utf8')).toBe('{"t":22}');
    await rm(dir, { recursive: true, force: true });
  });
});

describe('procRss', () => {
  it("reads this process's resident memory, and nothing for a pid that does not exist", () => {
    if (process.platform !== 'linux') return;
    expect(procRss(process.pid)).toBeGreaterThan(1024 * 1024);
    expect(procRss(2 ** 22 + 1)).toBeUndefined();
  });
});
