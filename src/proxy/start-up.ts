// What the two ways in, the headless proxy (cli.ts) and the desktop app (src/main/start-app.ts), both prepare at
// start-up before they call createProxy (server.ts, the composition root), in one place so the two cannot drift: the
// provider profile with the user's overrides (ASSISTANT_PROFILE_FILE, docs/configuration.md), the usage ledger opened
// with that profile's quota header names (docs/usage.md), and the owner's key of the data directory. The desktop app
// adds its data directory, the app's user-data folder, beneath the user's own settings.

import { loadOwnerKey, type OwnerKey } from './auth/owner-key.js';
import { ConfigError, type Config, type Settings } from './config.js';
import { createProfile, loadProfileOverrides, type Profile } from './profile.js';
import { openLedger } from './usage/index.js';
import type { LedgerLog } from './usage/ledger-options.js';
import type { UsageLedger } from './usage/ledger.js';

/** The profile with ASSISTANT_PROFILE_FILE's overrides; a bad file is a ConfigError naming that variable. */
export function loadProfile(env: NodeJS.ProcessEnv): Profile {
  let overrides;
  try {
    overrides = loadProfileOverrides(env);
  } catch (err) {
    throw new ConfigError((err as Error).message, 'ASSISTANT_PROFILE_FILE');
  }
  return createProfile(overrides);
}

/** The usage ledger in the config's data directory, reading quota windows under the profile's header names.
 * Never throws for a bad database file (open-db.ts moves it aside or keeps usage in memory). */
export function openUsageLedger(config: Config, logger: LedgerLog, profile: Profile): UsageLedger {
  return openLedger(config, logger, profile.quota);
}

/** Where an app keeps its data when the user has not chosen (docs/usage.md "Where"): the usage database, and the
 * CLI's working directory, which follows the data directory unless CLI_WORKDIR is set. A default only: a stored
 * DATA_DIR wins. */
export function dataDirDefaults(dir: string): Settings {
  return { dataDir: dir };
}

/**
 * The owner's key of this data directory (auth/owner-key.ts), made at first start; undefined when PROXY_ACCESS_KEY
 * is the key, or when the directory cannot be written (then `error` says why, and the proxy uses a key only it
 * knows, so the owner's data stays closed rather than open).
 */
export function ownerKeyFor(config: Pick<Config, 'accessKey' | 'dataDir'>): { owner?: OwnerKey; error?: string } {
  if (config.accessKey !== undefined) return {};
  try {
    return { owner: loadOwnerKey(config.dataDir) };
  } catch (err) {
    return { error: `${(err as NodeJS.ErrnoException).code ?? (err as Error).message} in ${config.dataDir}` };
  }
}
