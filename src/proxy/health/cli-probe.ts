// The CLI probe: where the CLI is, its version, and whether it is logged in
// (docs/interface.md "Health record", "Health errors"). It runs in the background on an interval and caches its last
// result, so a health request never waits on a process. Each command has a short deadline; a CLI that hangs makes the
// component "error", never a hung health check.

import { EventEmitter } from 'node:events';
import { readFile } from 'node:fs/promises';
import type { Profile } from '../profile.js';
import { findCli } from './find-cli.js';

interface RunResult {
  exitCode: number | undefined;
  stdout: string;
  stderr: string;
  timedOut: boolean;
}
/** `env` replaces the environment when given (the same one CLI children get), else the process's is used. */
export type RunCommand = (
  file: string,
  args: string[],
  opts: { timeoutMs: number; env?: NodeJS.ProcessEnv },
) => Promise<RunResult>;

type CliStatus = 'healthy' | 'unhealthy' | 'error' | 'unknown';
type AuthStatus = 'healthy' | 'unauthenticated' | 'error' | 'unknown';

export interface CliSnapshot {
  cli: { status: CliStatus; path?: string; version?: string; searchedPaths: string[]; error?: string };
  /** `renews`: `expires` is the access token's, which the CLI (and direct mode) renew by themselves with the
   * refresh token beside it: its end is routine, not something the user must act on. */
  auth: {
    status: AuthStatus;
    loggedIn: boolean;
    user?: string;
    method?: string;
    subscription?: string;
    expires?: string;
    renews?: boolean;
    error?: string;
  };
  lastCheck?: string;
}

interface CliProbeOptions {
  profile: Profile;
  cliPath?: string;
  credentialsPath: string;
  run: RunCommand;
  now?: () => number;
  envPath?: string;
  /** The environment of CLI children, so the probe sees the same login (HOME, config variables) they do. */
  env?: NodeJS.ProcessEnv;
}

const initial: CliSnapshot = {
  cli: { status: 'unknown', searchedPaths: [] },
  auth: { status: 'unknown', loggedIn: false },
};

export class CliProbe extends EventEmitter {
  private current: CliSnapshot = initial;
  private running: Promise<CliSnapshot> | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly opts: CliProbeOptions) {
    super();
  }

  snapshot(): CliSnapshot {
    return this.current;
  }

  /** Runs one probe (single-flight: concurrent callers share it). */
  refresh(): Promise<CliSnapshot> {
    this.running ??= this.probe()
      .then((snap) => {
        const changed =
          JSON.stringify({ ...snap, lastCheck: undefined }) !==
          JSON.stringify({ ...this.current, lastCheck: undefined });
        this.current = snap;
        if (changed) this.emit('change', snap);
        return snap;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  start(intervalMs: number): void {
    this.stop();
    this.timer = setInterval(() => void this.refresh().catch(() => undefined), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  private async probe(): Promise<CliSnapshot> {
    const { profile, run } = this.opts;
    const now = this.opts.now ?? Date.now;
    const lastCheck = new Date(now()).toISOString();
    const found = findCli({
      cliPath: this.opts.cliPath,
      names: profile.cli.executableNames,
      extraPaths: profile.cli.extraSearchPaths,
      envPath: this.opts.envPath,
    });
    if (!found.path) {
      return {
        cli: { status: 'unhealthy', searchedPaths: found.searched, error: 'CLI not found in PATH' },
        auth: { status: 'unknown', loggedIn: false },
        lastCheck,
      };
    }
    const path = found.path;
    const [version, auth] = await Promise.all([
      run(path, profile.cli.versionArgs, { timeoutMs: 5000, env: this.opts.env }).catch((err: Error) => ({
        exitCode: undefined,
        stdout: '',
        stderr: err.message,
        timedOut: false,
      })),
      run(path, profile.cli.authStatusArgs, { timeoutMs: 8000, env: this.opts.env }).catch((err: Error) => ({
        exitCode: undefined,
        stdout: '',
        stderr: err.message,
        timedOut: false,
      })),
    ]);
    let cli: CliSnapshot['cli'];
    if (version.exitCode === 0 && version.stdout.trim()) {
      cli = { status: 'healthy', path, version: version.stdout.trim().split(/\s+/)[0], searchedPaths: found.searched };
    } else {
      const why = version.timedOut ? 'timed out' : `exited with ${version.exitCode ?? 'an error'}`;
      cli = {
        status: 'error',
        path,
        searchedPaths: found.searched,
        error: `\`${profile.cli.versionArgs.join(' ')}\` ${why}`,
      };
    }
    return { cli, auth: await this.readAuth(auth), lastCheck };
  }

  private async readAuth(result: RunResult): Promise<CliSnapshot['auth']> {
    let parsed: Record<string, unknown> | undefined;
    try {
      const v = JSON.parse(result.stdout) as unknown;
      if (typeof v === 'object' && v !== null) parsed = v as Record<string, unknown>;
    } catch {
      parsed = undefined;
    }
    if (!parsed || typeof parsed.loggedIn !== 'boolean') {
      const why = result.timedOut ? 'timed out' : 'printed no login state';
      return {
        status: 'error',
        loggedIn: false,
        error: `\`${this.opts.profile.cli.authStatusArgs.join(' ')}\` ${why}`,
      };
    }
    if (!parsed.loggedIn)
      return { status: 'unauthenticated', loggedIn: false, method: String(parsed.authMethod ?? 'none') };
    // The CLI's own loginExpiresAt is the login's end (the user must log in again then); else the credential
    // file's access-token expiry, renewed by itself when a refresh token sits beside it.
    const expiry =
      typeof parsed.loginExpiresAt === 'string' ? { expires: parsed.loginExpiresAt } : await this.credentialExpiry();
    return {
      status: 'healthy',
      loggedIn: true,
      user: typeof parsed.email === 'string' ? parsed.email : undefined,
      method: typeof parsed.authMethod === 'string' ? parsed.authMethod : undefined,
      subscription: typeof parsed.subscriptionType === 'string' ? parsed.subscriptionType : undefined,
      ...expiry,
    };
  }

  /** The OAuth access token's expiry from the credential file, and whether a refresh token renews it (the time and
   * the presence only; no token is read out). */
  private async credentialExpiry(): Promise<{ expires?: string; renews?: boolean }> {
    try {
      const data = JSON.parse(await readFile(this.opts.credentialsPath, 'utf8')) as Record<
        string,
        { expiresAt?: unknown; refreshToken?: unknown }
      >;
      const entry = data[this.opts.profile.credentials.rootKey];
      const exp = entry?.expiresAt;
      if (typeof exp !== 'number') return {};
      return {
        expires: new Date(exp).toISOString(),
        renews: typeof entry?.refreshToken === 'string' && entry.refreshToken.length > 0,
      };
    } catch {
      return {};
    }
  }
}
