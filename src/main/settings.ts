// The desktop app's settings: electron-store on disk, validated with the proxy's own zod schema (config.ts), so a
// value the window can save is a value the proxy accepts. A store that cannot be read never stops the app: an
// unparseable file is moved aside (kept for the user, not deleted) and defaults are used; a parseable file with
// bad values loses only those values. Either way the user gets a visible warning (a notice in the window and a
// notification), never a crash.
//
// electron-store itself needs Electron's `app`, so it comes in through `createStore`; tests pass a small
// file-backed store with the same surface.
//
// The file holds the access key, so it is the owner's alone (docs/security.md "Files"): the directory is made (or
// tightened to) 0700 before the store opens, the store is asked for mode 0600 (`configFileMode`), and the file is
// set to 0600 after it opens and after every save, in case the store ignored the option (conf writes a new file
// on each save with the mode it was given, 0666 less the umask by default). A warning never quotes the file: a
// JSON error's message carries the text around the fault, which may be the key itself.

import { chmodSync, existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { ConfigError, validateSettings, type Settings } from '../proxy/config.js';
import type { Profile } from '../proxy/profile.js';

/** The part of electron-store (conf) this module uses. */
export interface StoreLike {
  store: Record<string, unknown>;
  readonly path: string;
}

interface SanitizeResult {
  settings: Settings;
  /** Setting names removed because their stored value was invalid or unknown. */
  dropped: string[];
}

/** Keeps every stored value the schema accepts; drops the ones it does not, one at a time, naming them. */
export function sanitizeStoredSettings(raw: unknown, profile?: Profile): SanitizeResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { settings: {}, dropped: raw === undefined ? [] : ['(whole store)'] };
  const settings: Record<string, unknown> = { ...(raw as Record<string, unknown>) };
  const dropped: string[] = [];
  for (let i = 0; i <= Object.keys(raw).length; i++) {
    try {
      validateSettings(settings as Settings, profile);
      return { settings: settings as Settings, dropped };
    } catch (err) {
      const key = err instanceof ConfigError ? err.key : undefined;
      // A LAN host stored without its access key: fall back to loopback rather than refuse to start.
      const culprit = key && key in settings ? key : key === 'accessKey' && 'host' in settings ? 'host' : undefined;
      if (!culprit) break;
      delete settings[culprit];
      dropped.push(culprit);
    }
  }
  return { settings: {}, dropped: ['(whole store)'] };
}

/** Modes of the settings file and its directory (POSIX; Windows ignores them and relies on the profile's ACL). */
export const settingsFileMode = 0o600;
export const settingsDirMode = 0o700;

/** What electron-store (conf) is asked for; pass it on to its constructor. */
export interface StoreOptions {
  configFileMode: number;
}

interface OpenSettingsOptions {
  createStore(options: StoreOptions): StoreLike;
  /** Where the store file lives (known before the store opens, so a corrupt file can be moved aside). */
  filePath: string;
  profile?: Profile;
  now?: () => number;
  /** Warnings that arise after opening (a save that failed). */
  onWarning?(message: string): void;
}

interface AppSettings {
  settings: Settings;
  /** Messages to show the user (corrupt store, dropped values, store not writable). */
  warnings: string[];
  persist(settings: Settings): void;
}

/**
 * Why a store could not be used, without a byte of its content. A file-system error's message names a code, a
 * system call and a path (`ENOSPC: no space left on device, write`): kept. A JSON error's message quotes the text
 * around the fault (with an unquoted key, the key): replaced by what kind of fault it was. Anything else: generic.
 */
function describeStoreError(err: unknown): string {
  const e = err as { code?: unknown; name?: unknown; message?: unknown } | null;
  const message = typeof e?.message === 'string' ? e.message : '';
  if (e?.name === 'SyntaxError') return 'it is not valid JSON';
  if (/^E[A-Z0-9]{2,30}: /.test(message) && message.length < 300) return message;
  if (typeof e?.code === 'string' && /^[A-Z0-9_]{2,40}$/.test(e.code)) return e.code;
  return 'it could not be read';
}

function ownerOnly(path: string, mode: number): void {
  try {
    if (existsSync(path)) chmodSync(path, mode);
  } catch {
    /* not ours to change (a read-only mount): the store still works */
  }
}

export function openSettings(opts: OpenSettingsOptions): AppSettings {
  const warnings: string[] = [];
  const dir = dirname(opts.filePath);
  try {
    mkdirSync(dir, { recursive: true, mode: settingsDirMode });
  } catch {
    /* reported below when the store cannot be opened */
  }
  ownerOnly(dir, settingsDirMode);
  const createStore = () => {
    const created = opts.createStore({ configFileMode: settingsFileMode });
    ownerOnly(created.path, settingsFileMode);
    return created;
  };
  let store: StoreLike | undefined;
  try {
    store = createStore();
  } catch (err) {
    const backup = `${opts.filePath}.corrupt-${new Date((opts.now ?? Date.now)()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      renameSync(opts.filePath, backup);
      ownerOnly(backup, settingsFileMode);
      store = createStore();
      warnings.push(
        `The settings file could not be read (${describeStoreError(err)}); defaults are in use. The old file was kept as ${backup}.`,
      );
    } catch (again) {
      store = undefined;
      warnings.push(
        `The settings file ${opts.filePath} cannot be used (${describeStoreError(again)}); defaults are in use and changes will not be saved.`,
      );
    }
  }
  let settings: Settings = {};
  if (store) {
    const result = sanitizeStoredSettings(store.store, opts.profile);
    settings = result.settings;
    if (result.dropped.length > 0) {
      warnings.push(`Some saved settings were invalid and were reset to their defaults: ${result.dropped.join(', ')}.`);
      trySave(store, settings, warnings);
    }
  }
  return {
    settings,
    warnings,
    persist(next: Settings) {
      if (!store) return;
      const before = warnings.length;
      trySave(store, next, warnings);
      for (const message of warnings.slice(before)) opts.onWarning?.(message);
    },
  };
}

function trySave(store: StoreLike, settings: Settings, warnings: string[]): void {
  try {
    store.store = JSON.parse(JSON.stringify(settings)) as Record<string, unknown>;
    ownerOnly(store.path, settingsFileMode);
  } catch (err) {
    const message = `Settings could not be saved to ${store.path}: ${describeStoreError(err)}`;
    if (!warnings.includes(message)) warnings.push(message);
  }
}
