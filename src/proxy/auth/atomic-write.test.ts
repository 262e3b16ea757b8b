// writeFileAtomic under a real crash: a child process runs it and is killed with SIGKILL at the moment between
// the flushed write and the rename, the one a crash leaves a token-bearing temporary file behind.

import { spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { staleTempAgeMs, sweepStaleTemps, tempPathFor, writeFileAtomic } from './atomic-write.js';

const tsxLoader = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const moduleUrl = pathToFileURL(fileURLToPath(new URL('./atomic-write.ts', import.meta.url))).href;

let dir: string;
let target: string;
const children: ChildProcess[] = [];

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-write-'));
  target = join(dir, '.credentials.json');
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

/** Starts a writer that stops between write and rename and prints its temporary file's path. */
async function writerStoppedBeforeRename(path: string, data: string): Promise<{ child: ChildProcess; tmp: string }> {
  const code = `
    import { writeFileAtomic } from ${JSON.stringify(moduleUrl)};
    await writeFileAtomic(${JSON.stringify(path)}, ${JSON.stringify(data)}, {
      beforeRename: (tmp) => { process.stdout.write(tmp + '\\n'); return new Promise(() => {}); },
    });`;
  const child = spawn(process.execPath, ['--import', tsxLoader, '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const tmp = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    child.once('exit', (code) => reject(new Error(`writer exited early (${code})`)));
  });
  return { child, tmp };
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

async function temps(): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.endsWith('.tmp'));
}

describe('writeFileAtomic killed between write and rename', () => {
  it('leaves the credential intact and an owner-only temporary file, which the next read sweeps', async () => {
    await writeFile(target, '{"old":true}');
    await chmod(target, 0o644);
    const { child, tmp } = await writerStoppedBeforeRename(target, '{"new":"secret-token"}');
    // Owner-only while it holds the new tokens, even though the target itself is 0644.
    expect((await stat(tmp)).mode & 0o777).toBe(0o600);
    await kill9(child);

    expect(await readFile(target, 'utf8')).toBe('{"old":true}');
    expect(await temps()).toHaveLength(1);
    expect(await readFile(tmp, 'utf8')).toBe('{"new":"secret-token"}');

    expect(await sweepStaleTemps(target)).toBe(1);
    expect(await temps()).toEqual([]);
    expect(await readFile(target, 'utf8')).toBe('{"old":true}');
  });

  it("the next write sweeps a dead writer's leftover and keeps the file mode", async () => {
    await writeFile(target, '{"old":true}');
    await chmod(target, 0o640);
    const { child } = await writerStoppedBeforeRename(target, '{"new":1}');
    await kill9(child);
    expect(await temps()).toHaveLength(1);

    await writeFileAtomic(target, '{"newer":2}');
    expect(await temps()).toEqual([]);
    expect(await readFile(target, 'utf8')).toBe('{"newer":2}');
    expect((await stat(target)).mode & 0o777).toBe(0o640);
  });

  it('a new file is created owner-only', async () => {
    await writeFileAtomic(target, '{"a":1}');
    expect((await stat(target)).mode & 0o777).toBe(0o600);
  });
});

describe('sweepStaleTemps', () => {
  it('keeps temporary files of live writers, of this process, and of other targets', async () => {
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    children.push(sleeper);
    const live = tempPathFor(target, sleeper.pid!);
    const own = tempPathFor(target);
    const other = join(dir, '.other.json.999999.abcd.tmp');
    const lookalike = join(dir, '.credentials.json.12x.abcd.tmp');
    for (const p of [live, own, other, lookalike]) await writeFile(p, 'x');

    expect(await sweepStaleTemps(target)).toBe(0);
    expect((await temps()).sort()).toEqual([live, own, other, lookalike].map((p) => p.slice(dir.length + 1)).sort());
  });

  it('removes a leftover older than an hour even when its pid is in use again', async () => {
    const stale = tempPathFor(target, 1);
    await writeFile(stale, 'x');
    expect(await sweepStaleTemps(target, { isAlive: () => true })).toBe(0);
    const old = new Date(Date.now() - staleTempAgeMs - 60_000);
    await utimes(stale, old, old);
    expect(await sweepStaleTemps(target, { isAlive: () => true })).toBe(1);
    expect(await temps()).toEqual([]);
  });

  it('never throws, even for a directory that does not exist', async () => {
    expect(await sweepStaleTemps(join(dir, 'missing', 'x.json'))).toBe(0);
  });
});
