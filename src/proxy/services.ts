// What the routes of one proxy instance share, built once by createServices for the composition root (server.ts) and
// never changed after (the long-lived objects a mode needs come from components.ts). Everything that touches the
// world comes in through `deps` (docs/principles.md "Injected dependencies"), so tests can swap a piece that cannot run here; nothing is a
// module-level singleton. The CLI probe is made here for the proxy and for diagnose alike (cliProbe).

import { readFileSync } from 'node:fs';
import { execa } from 'execa';
import type { Config } from './config.js';
import type { ModeName } from '../shared/modes.js';
import { cliEnv } from './health/cli-env.js';
import { CliProbe, type RunCommand } from './health/cli-probe.js';
import type { Logger } from './logger.js';
import { ProxyMetrics } from './metrics.js';
import type { Profile } from './profile.js';
import { noopUsageSink } from './usage/index.js';
import type { UsageSink } from './usage/types.js';

export interface ProxyDeps {
  /** Runs a short command (the CLI probe). */
  run: RunCommand;
  now: () => number;
  /** PATH used to find the CLI (a GUI-launched app passes its fixed login-shell PATH). */
  envPath?: string;
  /** Environment given to CLI children (defaults to process.env). */
  childEnv?: NodeJS.ProcessEnv;
  /** false: the model catalog is not read from the provider when the proxy starts, nor daily, only on an unknown
   * id or when asked (test beds that count every provider call). Default true. */
  readModelsAtStart?: boolean;
}

export interface Services {
  config: Config;
  profile: Profile;
  logger: Logger;
  metrics: ProxyMetrics;
  probe: CliProbe;
  /** The environment every CLI the proxy starts gets (chat children, the warm pool, the probe): the user's own
   * (`deps.childEnv`), PATH fixed for a GUI launch, without the proxy's own secrets (health/cli-env.ts). */
  cliEnv: NodeJS.ProcessEnv;
  deps: ProxyDeps;
  version: string;
  startedAt: number;
  modeOn(mode: ModeName): boolean;
  /** Where every request in ledger scope is recorded when it ends (docs/usage.md); a no-op sink without a ledger. */
  readonly usage: UsageSink;
}

interface ServicesOptions {
  config: Config;
  profile: Profile;
  logger: Logger;
  deps?: Partial<ProxyDeps>;
  /** Where requests are recorded; absent: nothing is (a no-op sink). */
  usage?: UsageSink;
}

export function createServices(options: ServicesOptions): Services {
  const { config, profile, logger } = options;
  const deps = defaultDeps(options.deps);
  const env = cliEnv(deps.childEnv, deps.envPath);
  return {
    config,
    profile,
    logger,
    metrics: new ProxyMetrics(deps.now),
    probe: cliProbe(config, profile, deps, env),
    cliEnv: env,
    deps,
    version: serviceVersion(),
    startedAt: deps.now(),
    modeOn: (mode: ModeName) => config.modes.includes(mode),
    usage: options.usage ?? noopUsageSink,
  };
}

/**
 * The CLI probe, of a proxy and of diagnose alike: where the CLI is, its version and its login, run with the
 * children's environment (`env`, by default the one `deps` make), so it sees the login they see and never the
 * proxy's own secrets.
 */
export function cliProbe(
  config: Pick<Config, 'cliPath' | 'credentialsPath'>,
  profile: Profile,
  deps: ProxyDeps,
  env: NodeJS.ProcessEnv = cliEnv(deps.childEnv, deps.envPath),
): CliProbe {
  return new CliProbe({
    profile,
    cliPath: config.cliPath,
    credentialsPath: config.credentialsPath,
    run: deps.run,
    now: deps.now,
    envPath: deps.envPath,
    env,
  });
}

/**
 * Runs a short command with a deadline. The child leads its own process group, so that on timeout the whole
 * group is killed: a CLI wrapper script whose grandchild holds stdout open cannot keep the probe waiting.
 */
const runWithExeca: RunCommand = async (file, args, { timeoutMs, env }) => {
  const groups = process.platform !== 'win32';
  const child = execa(file, args, {
    timeout: timeoutMs,
    reject: false,
    stdin: 'ignore',
    forceKillAfterDelay: 1000,
    detached: groups,
    env,
    extendEnv: env === undefined,
  });
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => {
    if (!groups || child.pid === undefined) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      /* already gone */
    }
  };
  const term = setTimeout(() => {
    timedOut = true;
    killGroup('SIGTERM');
  }, timeoutMs);
  const kill = setTimeout(() => killGroup('SIGKILL'), timeoutMs + 1000);
  try {
    const r = await child;
    return {
      exitCode: r.exitCode,
      stdout: String(r.stdout ?? ''),
      stderr: String(r.stderr ?? ''),
      timedOut: timedOut || r.timedOut,
    };
  } finally {
    clearTimeout(term);
    clearTimeout(kill);
  }
};

export function defaultDeps(partial: Partial<ProxyDeps> = {}): ProxyDeps {
  return { run: runWithExeca, now: Date.now, ...partial };
}

let cachedVersion: string | undefined;
export function serviceVersion(): string {
  if (cachedVersion) return cachedVersion;
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    cachedVersion = pkg.version ?? '0.0.0';
  } catch {
    cachedVersion = '0.0.0';
  }
  return cachedVersion;
}
