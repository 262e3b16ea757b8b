// Credential files as the two CLIs write them, so tests can point the proxy at a temporary copy. Both are written
// with mode 0600, like the real ones.

import { writeFile, mkdir, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultProfile } from '../../src/proxy/profile.js';
import { makeRespapiAccessToken, makeRespapiIdToken } from './jwt.js';

async function writePrivate(path: string, value: unknown): Promise<string> {
  await writeFile(path, JSON.stringify(value, null, 2), { mode: 0o600 });
  await chmod(path, 0o600); // writeFile's mode applies only when it creates the file
  return path;
}

export interface CliCredentialOptions {
  accessToken: string;
  refreshToken: string;
  /** Milliseconds since the epoch, as the CLI stores it. */
  expiresAt: number;
  scopes?: string[];
  subscriptionType?: string;
  /** File name inside dir; default .credentials.json (the CLI's own name). */
  fileName?: string;
}

/** Writes `<dir>/.credentials.json` in the shape of the CLI's OAuth credential file; returns its path. */
export async function writeCliCredentials(dir: string, opts: CliCredentialOptions): Promise<string> {
  await mkdir(dir, { recursive: true });
  return writePrivate(join(dir, opts.fileName ?? '.credentials.json'), {
    [defaultProfile.credentials.rootKey]: {
      accessToken: opts.accessToken,
      refreshToken: opts.refreshToken,
      expiresAt: opts.expiresAt,
      scopes: opts.scopes ?? ['user:inference', 'user:profile'],
      subscriptionType: opts.subscriptionType ?? 'max',
    },
  });
}

export interface RespapiCredentialOptions {
  /** Expiry of the access token, seconds since the epoch; default now + 3600. */
  accessExp?: number;
  accountId?: string;
  /** Use this access token instead of minting one (accessExp is then ignored). */
  accessToken?: string;
  idToken?: string;
  refreshToken?: string;
  /** ISO time of the last refresh; default now. */
  lastRefresh?: string;
  /** File name inside dir; default auth.json (the response-API CLI's own name). */
  fileName?: string;
}

/** Writes `<dir>/auth.json` in the shape of the response-API CLI's credential file; returns its path. */
export async function writeRespapiCredentials(dir: string, opts: RespapiCredentialOptions = {}): Promise<string> {
  await mkdir(dir, { recursive: true });
  const accountId = opts.accountId ?? 'acct-sim-1';
  return writePrivate(join(dir, opts.fileName ?? 'auth.json'), {
    OPENAI_API_KEY: null,
    tokens: {
      id_token: opts.idToken ?? makeRespapiIdToken({ accountId, exp: opts.accessExp }),
      access_token: opts.accessToken ?? makeRespapiAccessToken({ accountId, exp: opts.accessExp }),
      refresh_token: opts.refreshToken ?? 'rt-sim-initial',
      account_id: accountId,
    },
    last_refresh: opts.lastRefresh ?? new Date().toISOString(),
  });
}
