// A CLI child dies with the proxy (docs/tool-mode.md "Process hygiene"). A proxy killed with SIGKILL cannot end its
// children, and a CLI waiting for a client's tool results would then see its MCP call fail and tell the model so:
// one more billed provider call for an answer nobody reads. On Linux the kernel can send a child a signal when its
// parent dies (PR_SET_PDEATHSIG, kept across exec); node cannot set it, so the child is started through util-linux
// `setpriv --pdeathsig KILL --`, which sets it and then becomes the CLI itself (same pid, argv, environment, pipes).
// Where setpriv is missing or too old, or on another system, the CLI is started directly, as before.

import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

let checked: string | null | undefined;

/** The setpriv that can set a parent-death signal, or null. Checked once (a 2 ms run of /bin/true through it). */
export function deathSignalWrapper(candidates = ['/usr/bin/setpriv', '/bin/setpriv']): string | null {
  if (checked !== undefined) return checked;
  checked = null;
  if (process.platform !== 'linux') return checked;
  for (const path of candidates) {
    if (!existsSync(path)) continue;
    try {
      execFileSync(path, ['--pdeathsig', 'KILL', '--', '/bin/true'], { stdio: 'ignore', timeout: 5000 });
      checked = path;
      break;
    } catch {
      // no such option (util-linux before 2.33) or not runnable: start the CLI directly
    }
  }
  return checked;
}

/** The file and arguments that start `file args` so that it dies with this process where the system allows. */
export function dyingWithParent(file: string, args: string[]): [string, string[]] {
  const wrapper = deathSignalWrapper();
  return wrapper ? [wrapper, ['--pdeathsig', 'KILL', '--', file, ...args]] : [file, args];
}
