// Secret files for CLI children: system prompts, and the MCP configs of tool conversations (their bearer secret).
// System prompt files for CLI children (docs/tool-mode.md "Isolation"): a system prompt given as a command-line
// argument is readable by every local user through /proc/<pid>/cmdline, so it goes into a file instead, readable
// only by the owner (0600), in a directory only the owner may enter (0700) under the app's data directory, never a
// shared temporary directory. Each file is removed when its process ends (cli-conversation.ts); the directory of
// this proxy process (`<dataDir>/cli-prompts/<pid>`) when the backend closes. Directories of proxy processes that no
// longer run (killed before they could clean up) are swept on first use.

import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ProxyError } from '../../../errors.js';

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class PromptFiles {
  private readonly dir: string;
  private ready = false;
  private readonly shared = new Set<string>();

  constructor(
    private readonly root: string,
    private readonly extension = '.txt',
  ) {
    this.dir = join(root, String(process.pid));
  }

  /**
   * Removes what proxy processes that no longer run left behind (killed before they could clean up), at start; a
   * directory that cannot be used yet is left for the first write to report.
   */
  sweep(): void {
    try {
      this.prepare();
    } catch {
      // reported by write()
    }
  }

  /** Writes `text` to a new owner-only file and returns its path. Throws when the directory cannot be used. */
  write(text: string): string {
    if (!this.ready) this.prepare();
    const path = join(this.dir, `${randomBytes(12).toString('hex')}${this.extension}`);
    writeFileSync(path, text, { mode: 0o600, flag: 'wx' });
    return path;
  }

  /** A new empty owner-only directory of this process (a throwaway HOME, announcements.ts); the caller removes it. */
  tempDir(): string {
    if (!this.ready) this.prepare();
    return mkdtempSync(join(this.dir, 'home-'));
  }

  /**
   * Writes a file that every child of this process shares (the tool rules' settings), owner-only, under a fixed name;
   * it goes when the backend closes.
   */
  writeShared(name: string, text: string): string {
    if (!this.ready) this.prepare();
    const path = join(this.dir, name);
    writeFileSync(path, text, { mode: 0o600 });
    chmodSync(path, 0o600);
    this.shared.add(path);
    return path;
  }

  /** Removes this process's directory when no file is left in it (each file goes with its process). */
  close(): void {
    for (const path of this.shared) rmSync(path, { force: true });
    this.shared.clear();
    try {
      rmdirSync(this.dir);
    } catch {
      // not empty (a child still exiting removes its own file) or never made
    }
  }

  private prepare(): void {
    mkdirSync(this.root, { recursive: true, mode: 0o700 });
    chmodSync(this.root, 0o700);
    for (const name of readdirSync(this.root)) {
      const pid = Number(name);
      if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || processRuns(pid)) continue;
      rmSync(join(this.root, name), { recursive: true, force: true });
    }
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    if (!statSync(this.dir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    this.ready = true;
  }
}

/** A file the proxy must write under the data directory could not be: the user's setting is the cause. */
export function fileError(what: string, dataDir: string, err: unknown): ProxyError {
  const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
  // The path lies under the owner's home, and any local caller may get this answer: it goes to the log alone.
  return new ProxyError(
    'internal',
    `Cannot write ${what} in the data directory (${code}); set DATA_DIR to a directory the proxy may create (the proxy's log names the path)`,
    { ownerDetail: `${what}: ${dataDir}` },
  );
}
