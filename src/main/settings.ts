// The desktop app's settings: electron-store on disk, validated with the proxy's own zod schema (config.ts), so a
// value the window can save is a value the proxy accepts. A store that cannot be read never stops the app: an
// unparseable file is moved aside (kept for the user, not deleted) and defaults are used; a parseable file with
// bad values loses only those values. Either way the user gets a visible warning (a notice in the window and a
// notification), never a crash.
//
// electron-store itself needs Electron's `app`, so it comes in through `createStore`; tests pass a small
// file-backed store with the same surface.

import { renameSync } from 'node:fs';
import { ConfigError, validateSettings, type Settings } from '../proxy/config.js';
import type { Profile } from '../proxy/profile.js';

/** The part of electron-store (conf) this module uses. */
export interface StoreLike {
  store: Record<string, unknown>;
  readonly path: string;
}

export interface SanitizeResult {
  settings: Settings;
  /** Setting names removed because their stored value was invalid or unknown. */
  dropped: string[];
}

/** Keeps every stored value the schema accepts; drops the ones it does not, one at a time, naming them. */
export function sanitizeStoredSettings(raw: unknown, profile?: Profile): SanitizeResult {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { settings: {}, dropped: raw === undefined ? [] : ['(whole store)'] };
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

export interface OpenSettingsOptions {
  createStore(): StoreLike;
  /** Where the store file lives (known before the store opens, so a corrupt file can be moved aside). */
  filePath: string;
  profile?: Profile;
  now?: () => number;
  /** Warnings that arise after opening (a save that failed). */
  onWarning?(message: string): void;
}

export interface AppSettings {
  settings: Settings;
  /** Messages to show the user (corrupt store, dropped values, store not writable). */
  warnings: string[];
  persist(settings: Settings): void;
}

export function openSettings(opts: OpenSettingsOptions): AppSettings {
  const warnings: string[] = [];
  let store: StoreLike | undefined;
  try {
    store = opts.createStore();
  } catch (err) {
    const backup = `${opts.filePath}.corrupt-${new Date((opts.now ?? Date.now)()).toISOString().replace(/[:.]/g, '-')}`;
    try {
      renameSync(opts.filePath, backup);
      store = opts.createStore();
      warnings.push(`The settings file could not be read (${(err as Error).message}); defaults are in use. The old file was kept as ${backup}.`);
    } catch (again) {
      store = undefined;
      warnings.push(`The settings file ${opts.filePath} cannot be used (${(again as Error).message}); defaults are in use and changes will not be saved.`);
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
  } catch (err) {
    const message = `Settings could not be saved to ${store.path}: ${(err as Error).message}`;
    if (!warnings.includes(message)) warnings.push(message);
  }
}
