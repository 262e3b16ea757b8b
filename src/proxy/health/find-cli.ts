// Finds the assistant CLI: ASSISTANT_CLI_PATH when set, else each executable name on PATH, else the profile's
// well-known install locations. Returns every place it looked, for the searched paths of
// docs/interface.md "Health errors".

import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { homedir } from 'node:os';

export interface FindResult {
  path?: string;
  searched: string[];
}

function isExecutableFile(p: string): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    accessSync(p, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `npm run` puts its own node-gyp shim folder on PATH; no CLI lives there, and listing it in "searched" only
 * puzzled users reading why the CLI was not found. */
function isNpmInternal(dir: string): boolean {
  return /[\\/]node-gyp-bin[\\/]?$/.test(dir);
}

export function findCli(opts: {
  cliPath?: string;
  names: string[];
  extraPaths: string[];
  envPath?: string;
  platform?: NodeJS.Platform;
}): FindResult {
  if (opts.cliPath) {
    return isExecutableFile(opts.cliPath)
      ? { path: opts.cliPath, searched: [opts.cliPath] }
      : { searched: [opts.cliPath] };
  }
  const platform = opts.platform ?? process.platform;
  const exts = platform === 'win32' ? ['.exe', '.cmd', '.bat', ''] : [''];
  const searched: string[] = [];
  const dirs = [
    ...new Set((opts.envPath ?? process.env.PATH ?? '').split(delimiter).filter((d) => d && !isNpmInternal(d))),
  ];
  for (const dir of dirs) {
    for (const name of opts.names) {
      for (const ext of exts) {
        const candidate = join(dir, name + ext);
        searched.push(candidate);
        if (isExecutableFile(candidate)) return { path: candidate, searched };
      }
    }
  }
  for (const extra of opts.extraPaths) {
    const candidate = isAbsolute(extra) ? extra : join(homedir(), extra);
    if (searched.includes(candidate)) continue;
    searched.push(candidate);
    if (isExecutableFile(candidate)) return { path: candidate, searched };
  }
  return { searched };
}
