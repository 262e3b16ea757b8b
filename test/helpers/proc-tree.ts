// The processes below a process, from Linux's /proc, for the tests and the bench that count tool mode's CLI
// processes (docs/tool-mode.md "Live conversations"). Elsewhere /proc is absent and every list is empty.

import { readdirSync, readFileSync } from 'node:fs';
import { defaultProfile } from '../../src/proxy/profile.js';

/** Every process below pid: the children of each of its threads (a child belongs to the thread that forked it). */
export function descendants(pid: number): number[] {
  const out: number[] = [];
  const walk = (p: number): void => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const t of tasks) {
      let text = '';
      try {
        text = readFileSync(`/proc/${p}/task/${t}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const c of text.trim().split(/\s+/).filter(Boolean).map(Number)) {
        out.push(c);
        walk(c);
      }
    }
  };
  walk(pid);
  return out;
}

/** The parent of pid (/proc/<pid>/stat, the field after the command's closing parenthesis). */
export function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * The CLI processes below `root` (`isCli` says which are), without a CLI's own children that still run its executable:
 * a fork before it execs a tool (the real CLI runs git at start-up) is not a process of the proxy.
 */
export function cliProcesses(root: number, isCli: (pid: number) => boolean): number[] {
  const cli = descendants(root).filter(isCli);
  return cli.filter((p) => !cli.includes(parentOf(p) ?? -1));
}

/** The arguments of the health probe's runs of the CLI (docs/http.md "Health"), joined by spaces. */
const probeArgs = new Set([defaultProfile.cli.versionArgs, defaultProfile.cli.authStatusArgs].map((a) => a.join(' ')));

/**
 * Whether pid is one of the health probe's runs of the CLI (`--version`, `auth status`): it holds no conversation and
 * CLI_LIVE_MAX does not bound it (docs/tool-mode.md "Live conversations"). Undefined while its arguments cannot be read
 * (gone, or an exiting process, whose command line is empty).
 */
export function probeRun(pid: number): boolean | undefined {
  let argv: string[] = [];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').slice(0, -1);
  } catch {
    // gone
  }
  return argv.length > 1 ? probeArgs.has(argv.slice(1).join(' ')) : undefined;
}
