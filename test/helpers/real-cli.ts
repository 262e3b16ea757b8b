// The real assistant CLI for the tests that need it (docs/testing.md): the one the test set-up installs, or
// REAL_ASSISTANT_CLI. A suite without it is skipped with that reason, never failed. Its HOME is a temporary folder
// with an OAuth credential file, and the CLI's base-URL variable points at the provider simulator, so nothing
// reaches a real provider.

import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Settings } from '../../src/proxy/config.js';
import { defaultProfile } from '../../src/proxy/profile.js';
import { UsageLedger } from '../../src/proxy/usage/ledger.js';
import { writeCliCredentials } from '../simulator/index.js';
import { cliProcesses, probeRun } from './proc-tree.js';
import { startProxy, type TestProxy } from './proxy.js';

const cached = fileURLToPath(
  new URL('../../.cache/real-cli/node_modules/@anthropic-ai/claude-code/bin/claude.exe', import.meta.url),
);

/** Where the real CLI is looked for. */
export const realCliPath = process.env.REAL_ASSISTANT_CLI || cached;

/** True when the real CLI is installed; otherwise says, once per suite, why `suite` is skipped. */
export function realCliPresent(suite: string): boolean {
  const present = existsSync(realCliPath);
  if (!present)
    console.warn(
      `[${suite}] skipped: no real assistant CLI at ${realCliPath} (run npm run test:setup, or set REAL_ASSISTANT_CLI)`,
    );
  return present;
}

/** A temporary HOME whose CLI login is an OAuth credential file valid for an hour (tokens named after `name`). */
export async function realCliHome(name: string): Promise<string> {
  const home = await mkdtemp(join(tmpdir(), `${name}-`));
  await mkdir(join(home, '.claude'), { recursive: true });
  await writeCliCredentials(join(home, '.claude'), {
    accessToken: `sk-ant-oat01-${name}`,
    refreshToken: `sk-ant-ort01-${name}`,
    expiresAt: Date.now() + 3_600_000,
  });
  return home;
}

/** The real CLI's environment in a test: that HOME, the provider simulator at `simUrl`, no side traffic. */
export function realCliEnv(home: string, simUrl: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    [defaultProfile.cli.baseUrlEnv]: simUrl,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/**
 * Whether pid is the real CLI: its executable is the CLI, or its command line names it (a process between fork and
 * exec, e.g. under the parent-death wrapper).
 */
function isRealCli(pid: number): boolean {
  try {
    if (readlinkSync(`/proc/${pid}/exe`) === realpathSync(realCliPath)) return true;
  } catch {
    // gone, or a zombie: not a running process
    return false;
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(realCliPath);
  } catch {
    return false;
  }
}

/**
 * The real CLI processes of this test process (the proxy runs in it); a CLI's own children and the health probe's
 * runs (`--version`, `auth status`: outside CLI_LIVE_MAX, docs/tool-mode.md "Live conversations") are not counted.
 */
export function realCliPids(): number[] {
  return cliProcesses(process.pid, isRealCli).filter((pid) => probeRun(pid) !== true);
}

/** Ends a real-CLI bed: the proxy first (it ends the CLIs), then the ledger, the simulator and the temporary HOME. */
export async function closeRealCliBed(bed: {
  proxy?: { close(): Promise<void> };
  ledger?: { close(): void };
  sim?: { close(): Promise<void> };
  home?: string;
}): Promise<void> {
  await bed.proxy?.close();
  bed.ledger?.close();
  await bed.sim?.close();
  if (bed.home) await rm(bed.home, { recursive: true, force: true });
}

/**
 * A real-CLI bed with a usage ledger: a temporary HOME named after `name`, its ledger, and a tool-mode proxy on the
 * real CLI pointed at the simulator at `simUrl`, with live conversations on (a later turn is answered by the process
 * that answered the one before) and no retries of the CLI's own; `settings` add to these.
 */
export async function startRealCliBed(
  name: string,
  simUrl: string,
  settings: Settings = {},
): Promise<{ home: string; ledger: UsageLedger; proxy: TestProxy }> {
  const home = await realCliHome(name);
  const ledger = UsageLedger.open({ dataDir: join(home, 'data'), retentionDays: 30, maxMb: 16 });
  const proxy = await startProxy(
    {
      cliPath: realCliPath,
      cliWorkDir: join(home, 'work'),
      modes: ['tool'],
      cliFirstTokenTimeoutMs: 60_000,
      rateLimitPerMinute: 1000,
      cliMaxRetries: 0,
      cliLiveMax: 4,
      ...settings,
    },
    { deps: { childEnv: realCliEnv(home, simUrl) }, usage: ledger },
  );
  return { home, ledger, proxy };
}
