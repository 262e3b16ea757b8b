// The owner's key (docs/security.md "The owner's key"): generated at first start, kept in the data directory readable
// only by the owner (0600 in a 0700 directory), and required for data about the owner (usage, the CSV export,
// captured bodies, the request inspector, the e-mail and paths of /health/detailed). Another local user can reach
// the port but cannot read the file, so the port alone no longer shows them the owner's usage history or prompts.
// PROXY_ACCESS_KEY, when set, is the key instead, and is then required for everything (config.ts).

import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const ownerKeyFileName = 'owner-key';

export interface OwnerKey {
  key: string;
  /** The file that holds it (what the headless start-up tells its owner). */
  path: string;
  /** Made by this call (first start). */
  created: boolean;
}

/** A new key: 32 random bytes, URL-safe, so it passes as an API key in every client. */
export function newOwnerKey(): string {
  return `apk-${randomBytes(32).toString('base64url')}`;
}

/** Reads the owner key of `dataDir`, making it (and the directory) on first start; tightens modes that drifted. */
export function loadOwnerKey(dataDir: string): OwnerKey {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (process.platform !== 'win32') chmodSync(dataDir, 0o700);
  const path = join(dataDir, ownerKeyFileName);
  try {
    const key = readFileSync(path, 'utf8').trim();
    if (key.length >= 16) {
      if (process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0) chmodSync(path, 0o600);
      return { key, path, created: false };
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const key = newOwnerKey();
  writeFileSync(path, `${key}\n`, { mode: 0o600 });
  if (process.platform !== 'win32') chmodSync(path, 0o600);
  return { key, path, created: true };
}
