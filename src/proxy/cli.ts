#!/usr/bin/env node
// `npm run serve`: the headless proxy. A person reads the start-up summary on stderr (where it listens, which modes
// are on, whether the CLI is found and logged in, or the one thing to do next); the structured JSON logs follow on
// stdout. Exit codes (README "Troubleshooting", docs/configuration.md):
//   0  stopped by SIGINT/SIGTERM after in-flight streams finished (up to SHUTDOWN_GRACE_MS); --help; --diagnose
//      found nothing wrong
//   1  could not start: port taken, address not available or not allowed (one line with the remedy), or an
//      unexpected failure (our bug: its stack is printed so it can be reported); --diagnose found a problem
//   2  an invalid setting (one line naming it, no stack): flags, environment, settings file, ASSISTANT_PROFILE_FILE,
//      MODEL_ALIASES; the same with --diagnose (a bad setting is not a diagnose finding: nothing was checked)
//   130 a second signal while shutting down

import { existsSync } from 'node:fs';
import { ConfigError, loadConfig, usage, type Config } from './config.js';
import { createLogger } from './logger.js';
import type { CliSnapshot } from './health/cli-probe.js';
import { loadProfile, openUsageLedger, ownerKeyFor } from './start-up.js';
import type { OwnerKey } from './auth/owner-key.js';
import { LiveModelCatalog } from './models/live-catalog.js';
import type { Profile } from './profile.js';
import { baseUrls, formatBaseUrls } from './routes/root.js';
import { PortInUseError } from './listen/bind.js';
import type { OllamaListenerStatus } from './listen/listeners.js';
import { createProxy } from './server.js';
import { logNotice, watchLaneAlerts } from './usage/alert-watch.js';

const name = 'assistant-proxy';

/** Settings, profile and model aliases: any problem here is the user's setting, exit 2, before serving or
 * --diagnose. */
function loadSettings(): { config: Config; profile: Profile; help: boolean; diagnose: boolean; full: boolean } {
  const profile = loadProfile(process.env);
  const loaded = loadConfig({ argv: process.argv.slice(2), env: process.env, profile });
  // An alias of an unknown model (MODEL_ALIASES) shows only against the catalog (the cached provider list and the
  // built-in fallback), when one is built. Checked here, so --diagnose refuses it like serving does: its temporary
  // proxy used to turn it into a failed check (exit 1), and with no mode on it was never built at all. Reading the
  // cache is this check's only I/O: the provider is asked once the proxy listens.
  const quiet = createLogger('silent');
  new LiveModelCatalog({
    profile,
    userAliases: loaded.config.modelAliases,
    dataDir: loaded.config.dataDir,
    fetchModels: () => Promise.reject(new Error('not read while checking settings')),
    logger: quiet,
  });
  return { ...loaded, profile };
}

/** The CLI's state in plain words, and the one thing to do next when something is missing. */
function cliLines(snap: CliSnapshot, profile: Profile, cliPath: string | undefined): { line: string; next?: string } {
  const install = `install the assistant CLI: npm install -g ${profile.clientSupport.cliPackage} (or set ASSISTANT_CLI_PATH to where it is)`;
  const login = profile.cli.loginHint.replace(/^Log in(?: again)? with the CLI: run /, '');
  // No check has finished yet (a CLI that is slow to answer on a busy machine): saying "not found" here sent
  // users to install a CLI they had; the banner says "checking" and prints the result when the check ends.
  if (!snap.lastCheck) return { line: 'checking… (the result follows when the check ends)' };
  if (snap.cli.status === 'unhealthy' || (snap.cli.status === 'unknown' && !snap.cli.path)) {
    if (cliPath)
      return {
        line: `not found at ${cliPath} (ASSISTANT_CLI_PATH)`,
        next: 'point ASSISTANT_CLI_PATH (--cli-path) at the CLI, or unset it to search PATH',
      };
    return { line: 'not found on PATH', next: `${install}, then log in: ${login}` };
  }
  const where = `${snap.cli.path ?? '?'}${snap.cli.version ? ` (${snap.cli.version})` : ''}`;
  if (snap.cli.status === 'error')
    return {
      line: `found at ${where}, but it does not answer: ${snap.cli.error ?? 'unknown error'}`,
      next: 'check that the CLI runs by itself',
    };
  if (snap.auth.loggedIn)
    return { line: `found at ${where}, logged in${snap.auth.user ? ` as ${snap.auth.user}` : ''}` };
  if (snap.auth.status === 'unauthenticated')
    return { line: `found at ${where}, not logged in`, next: profile.cli.loginHint };
  return { line: `found at ${where}; login state not known yet${snap.auth.error ? ` (${snap.auth.error})` : ''}` };
}

function usesCli(config: Config): boolean {
  return config.modes.includes('tool') || config.modes.includes('direct');
}

/** The banner's CLI line again, once the first check has ended after the banner was printed. */
function cliUpdate(snap: CliSnapshot, profile: Profile, cliPath: string | undefined): string {
  const cli = cliLines(snap, profile, cliPath);
  return `${name}: assistant CLI: ${cli.line}\n${cli.next ? `Next: ${cli.next}.\n` : ''}`;
}

/** The Ollama listener's one line (docs/ollama.md): where it listens, or why it does not. */
function ollamaLine(status: OllamaListenerStatus, mode: Config['ollamaMode']): string | undefined {
  if (status.state === 'off') return undefined;
  if (status.state === 'listening') return `  Ollama API: ${status.url} (chats in ${mode} mode)`;
  return `  Ollama API: ${status.message}`;
}

/** Where the key is and what it opens: the owner reads this; another local user cannot read the file it names. */
function keyLine(config: Config, key: { owner?: OwnerKey; error?: string }): string {
  if (config.accessKey !== undefined) return '  access key: PROXY_ACCESS_KEY, required for every request';
  if (key.owner) {
    const what = config.requireAccessKey
      ? 'required for every request (REQUIRE_ACCESS_KEY)'
      : 'opens usage data and /health/detailed in full; chats need none';
    return `  owner key: ${key.owner.path}${key.owner.created ? ' (new)' : ''}, readable only by you; ${what} (docs/security.md)`;
  }
  return `  owner key: not saved (${key.error ?? 'unknown error'}); usage data stays closed until DATA_DIR can be written`;
}

function startupSummary(
  url: string,
  config: Config,
  profile: Profile,
  snap: CliSnapshot,
  version: string,
  ollama: OllamaListenerStatus,
  key: { owner?: OwnerKey; error?: string },
): string {
  const lines = [
    `Assistant Proxy ${version} listening on ${url}`,
    ...formatBaseUrls(baseUrls(url, config.modes)),
    `  modes on: ${config.modes.join(', ') || 'none'}`,
    keyLine(config, key),
  ];
  const ollamaText = ollamaLine(ollama, config.ollamaMode);
  if (ollamaText) lines.push(ollamaText);
  const next: string[] = [];
  if (usesCli(config)) {
    const cli = cliLines(snap, profile, config.cliPath);
    lines.push(`  assistant CLI: ${cli.line}`);
    if (cli.next) next.push(cli.next);
  }
  if (config.modes.includes('respapi') && !existsSync(config.respapiCredentialsPath)) {
    lines.push(`  response API: no login found at ${config.respapiCredentialsPath}`);
    // Only the one thing to do next: the response API is experimental and matters less than the CLI.
    // While the CLI check runs, its own next step may still come, and it matters more.
    if (next.length === 0 && (snap.lastCheck || !usesCli(config))) next.push(profile.respapi.loginHint);
  }
  if (next.length > 0) lines.push('', `Next: ${next[0]}.`);
  lines.push('', 'Logs follow as JSON lines on stdout. Stop with Ctrl-C.', '');
  return lines.join('\n');
}

/** --diagnose: each enabled mode checked end to end through a temporary proxy (diagnose/index.ts), the report on
 * stdout; 0 when nothing failed. Loaded only when asked for, so that it costs an ordinary start nothing. */
async function diagnose(config: Config, profile: Profile, full: boolean): Promise<number> {
  const { runDiagnose } = await import('./diagnose/index.js');
  // The ledger's billing refusals are part of the report (docs/usage.md "Lanes"); SQLite's WAL lets this read run
  // beside a proxy that is serving.
  const usage = openUsageLedger(config, createLogger('silent'), profile);
  let result: Awaited<ReturnType<typeof runDiagnose>>;
  try {
    result = await runDiagnose(config, { profile, full, usage });
  } finally {
    usage.close();
  }
  const { text, ok } = result;
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return ok ? 0 : 1;
}

async function main(): Promise<number> {
  let settings;
  try {
    settings = loadSettings();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${name}: ${err.message}\n`);
    return 2;
  }
  if (settings.help) {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  const { config, profile } = settings;
  if (settings.diagnose) return diagnose(config, profile, settings.full);

  const logger = createLogger(config.logLevel);
  // The usage ledger (docs/usage.md) lives as long as this process; a bad database file never stops serving.
  const ledger = openUsageLedger(config, logger, profile);
  // The owner's key (docs/security.md "The owner's key"): made at first start, owner-only in the data directory.
  const key = ownerKeyFor(config);
  // Headless, each alert is a warn line with a stable text (docs/usage.md "Alerts").
  const alertKinds = new Set(config.quotaAlerts);
  watchLaneAlerts(ledger, { kinds: () => alertKinds, names: profile.quota, notify: (n) => logNotice(logger, n) });
  let proxy: ReturnType<typeof createProxy>;
  try {
    // The proxy's one model catalog is built here; loadSettings() has checked MODEL_ALIASES already, and any other
    // setting refused while building the proxy is still a bad setting.
    proxy = createProxy({ config, profile, logger, usage: ledger, ownerKey: key.owner?.key });
  } catch (err) {
    ledger.close();
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`${name}: ${err.message}\n`);
    return 2;
  }
  try {
    const { url } = await proxy.listen();
    const snap = proxy.services.probe.snapshot();
    process.stderr.write(startupSummary(url, config, profile, snap, proxy.services.version, proxy.ollama(), key));
    if (!snap.lastCheck && usesCli(config)) {
      // The first check is still running (listen() waits for it only a few seconds): its result follows, once.
      void proxy.services.probe.refresh().then(
        (done) => process.stderr.write(cliUpdate(done, profile, config.cliPath)),
        () => undefined,
      );
    }
    logger.info(
      {
        url,
        modes: config.modes,
        cli: snap.cli.path ?? null,
        cliStatus: snap.cli.status,
        loggedIn: snap.auth.loggedIn,
      },
      'assistant-proxy listening',
    );
  } catch (err) {
    await proxy.close(0).catch(() => undefined);
    ledger.close();
    // listen() rejects with a message written for a person (port taken, address not available, not allowed).
    process.stderr.write(
      `${name}: ${err instanceof PortInUseError ? '' : 'cannot start: '}${(err as Error).message}\n`,
    );
    return 1;
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        process.stderr.write(`${name}: second signal, exiting now\n`);
        ledger.close();
        process.exit(130);
      }
      stopping = true;
      process.stderr.write(
        `${name}: ${signal} received, stopping (in-flight requests may finish for up to ${config.shutdownGraceMs} ms)\n`,
      );
      logger.info({ signal }, 'shutting down');
      void proxy.close().then(() => {
        ledger.close();
        resolve();
      });
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
  process.stderr.write(`${name}: stopped\n`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    // Not a setting and not a known start-up failure: our own bug. The stack helps a report; no secret is in it.
    process.stderr.write(
      `${name}: unexpected failure: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
    );
    process.exit(1);
  },
);
