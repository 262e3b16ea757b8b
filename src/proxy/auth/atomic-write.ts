// Credential files are rewritten atomically (docs/lessons.md "Tokens and auth": a crash mid-write must not log the user
// out): the new content goes to a temporary file `.<name>.<pid>.<hex>.tmp` in the same directory, is flushed to disk,
// then renamed over the original. The temporary file is owner-only (0600) from the moment it exists, because it holds
// the new tokens; it takes the target's mode (the file's current mode when it has one, else 0600) only just before
// the rename.
//
// A process killed between write and rename leaves its temporary file behind, tokens included
// (docs/security.md "Files"). sweepStaleTemps removes such leftovers of one target: those whose writer
// is no longer alive, and those older than an hour whatever their pid says (pids are reused; no write takes that
// long). It runs before every write, and the credential readers call it when they read the file.

import { randomBytes } from 'node:crypto';
import { open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

interface WriteFileAtomicOptions {
  /** Called after the data is flushed and before the rename (tests stop a writer exactly there). */
  beforeRename?: (tmpPath: string) => Promise<void> | void;
}

/** Temporary files older than this are stale even when their pid is in use again. */
export const staleTempAgeMs = 60 * 60 * 1000;

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function tempPattern(targetPath: string): RegExp {
  return new RegExp(`^\\.${escapeRegExp(basename(targetPath))}\\.(\\d+)\\.[0-9a-f]+\\.tmp$`);
}

export function tempPathFor(targetPath: string, pid: number = process.pid): string {
  return join(dirname(targetPath), `.${basename(targetPath)}.${pid}.${randomBytes(4).toString('hex')}.tmp`);
}

/** True when a process with this pid exists (EPERM: it exists but belongs to another user). */
function isPidAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface SweepOptions {
  isAlive?: (pid: number) => boolean;
  now?: () => number;
}

/**
 * Removes temporary files of `targetPath` left by writers that died between write and rename. Never throws (a
 * failed sweep must not stop a credential from being read); returns how many files it removed.
 */
export async function sweepStaleTemps(targetPath: string, opts: SweepOptions = {}): Promise<number> {
  const isAlive = opts.isAlive ?? isPidAlive;
  const now = (opts.now ?? Date.now)();
  const pattern = tempPattern(targetPath);
  const dir = dirname(targetPath);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const name of names) {
    const m = pattern.exec(name);
    if (!m) continue;
    const pid = Number(m[1]);
    const path = join(dir, name);
    try {
      const info = await stat(path);
      if (!info.isFile()) continue;
      const old = now - info.mtimeMs > staleTempAgeMs;
      // This process's own temporary files belong to writes in progress, unless they are old.
      const writerGone = pid === process.pid ? false : !isAlive(pid);
      if (!writerGone && !old) continue;
      await unlink(path);
      removed++;
    } catch {
      /* gone meanwhile, or not ours to remove: leave it */
    }
  }
  return removed;
}

export async function writeFileAtomic(path: string, data: string, opts: WriteFileAtomicOptions = {}): Promise<void> {
  await sweepStaleTemps(path);
  let mode = 0o600;
  try {
    mode = (await stat(path)).mode & 0o777;
  } catch {
    /* a new file: owner-only */
  }
  const tmp = tempPathFor(path);
  const handle = await open(tmp, 'wx', 0o600);
  try {
    await handle.writeFile(data, 'utf8');
    await handle.sync();
    await opts.beforeRename?.(tmp);
    await handle.chmod(mode);
  } catch (err) {
    await handle.close().catch(() => undefined);
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
  await handle.close();
  try {
    await rename(tmp, path);
  } catch (err) {
    await unlink(tmp).catch(() => undefined);
    throw err;
  }
}
