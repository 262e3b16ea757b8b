// A GUI-launched app (Finder, Dock, a desktop launcher) gets a minimal PATH, not the one the user's login shell
// builds, so `claude` installed under ~/.local/bin or a Node version manager is "not found"
// (docs/principles.md "Child processes", electron/fiddle). Before the proxy looks for the CLI we ask the login shell
// for its PATH, once, with a deadline: a slow or broken shell profile must not stop the app from starting.

import { execFile } from 'node:child_process';
import { basename, delimiter } from 'node:path';

const pathMarker = '__PATH__';

/** The command that prints PATH between markers (noise printed by shell profiles is outside them). */
export function shellPathCommand(shell: string): string[] {
  // fish has no ${VAR} syntax and keeps PATH as a list.
  if (basename(shell) === 'fish') return ['-ilc', `printf '${pathMarker}%s${pathMarker}' (string join : $PATH)`];
  return ['-ilc', `printf '%s' "${pathMarker}\${PATH}${pathMarker}"`];
}

/** Extracts PATH from the shell's output; undefined when the markers are missing or the value is empty. */
export function parseShellPath(stdout: string): string | undefined {
  const start = stdout.indexOf(pathMarker);
  if (start < 0) return undefined;
  const end = stdout.indexOf(pathMarker, start + pathMarker.length);
  if (end < 0) return undefined;
  // Strip the terminal escapes some profiles print.
  // eslint-disable-next-line no-control-regex -- the escape character is what the pattern matches
  const escapes = /\u001b\[[0-9;]*[A-Za-z]/g;
  const value = stdout
    .slice(start + pathMarker.length, end)
    .replace(escapes, '')
    .trim();
  return value.length > 0 ? value : undefined;
}

/** The shell's entries first, then any of the current PATH it lacks; no duplicates, no empty entries. */
export function mergePaths(first: string | undefined, second: string | undefined, sep = delimiter): string {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const list of [first, second]) {
    for (const entry of (list ?? '').split(sep)) {
      if (entry && !seen.has(entry)) {
        seen.add(entry);
        out.push(entry);
      }
    }
  }
  return out.join(sep);
}

export type RunShell = (
  file: string,
  args: string[],
  opts: { timeoutMs: number; env: NodeJS.ProcessEnv },
) => Promise<string>;

const runShell: RunShell = (file, args, { timeoutMs, env }) =>
  new Promise((resolve, reject) => {
    const child = execFile(
      file,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', env, maxBuffer: 1024 * 1024 },
      (err, stdout) => {
        // A profile that exits non-zero after printing PATH still gave us what we need.
        if (err && !String(stdout).includes(pathMarker)) reject(err);
        else resolve(String(stdout));
      },
    );
    child.stdin?.end();
  });

interface ShellPathOptions {
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
  run?: RunShell;
  timeoutMs?: number;
}

export interface ShellPathResult {
  /** The PATH to use: the login shell's merged with the current one (or the current one alone). */
  path: string;
  source: 'login-shell' | 'inherited';
  /** Why the login shell's PATH could not be read. */
  error?: string;
}

export async function loginShellPath(opts: ShellPathOptions = {}): Promise<ShellPathResult> {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  const current = env.PATH ?? '';
  if (platform === 'win32') return { path: current, source: 'inherited' };
  const shell = env.SHELL || (platform === 'darwin' ? '/bin/zsh' : '/bin/sh');
  try {
    const stdout = await (opts.run ?? runShell)(shell, shellPathCommand(shell), {
      timeoutMs: opts.timeoutMs ?? 5000,
      // Keep prompts and self-updaters of popular shell frameworks quiet.
      env: { ...env, DISABLE_AUTO_UPDATE: 'true', ZSH_DISABLE_COMPFIX: 'true', TERM: 'dumb' },
    });
    const parsed = parseShellPath(stdout);
    if (!parsed) return { path: current, source: 'inherited', error: `${shell} printed no PATH` };
    return { path: mergePaths(parsed, current, ':'), source: 'login-shell' };
  } catch (err) {
    return { path: current, source: 'inherited', error: `${shell} -ilc failed: ${(err as Error).message}` };
  }
}
