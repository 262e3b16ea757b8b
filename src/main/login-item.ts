// "Open at login". macOS and Windows use Electron's login items; Linux has none in Electron, so we write an XDG
// autostart entry (~/.config/autostart/assistant-proxy.desktop), the freedesktop way every desktop honours.
// Launched at login the app starts hidden (the tray icon is enough). How it knows (docs/desktop.md "Platform
// details, and how each is known", from Electron 45's app.getLoginItemSettings/setLoginItemSettings documentation): on
// Windows and Linux the entry passes --hidden; macOS passes no arguments to a login item (`args` is Windows-only) and
// no longer honours `openAsHidden` (macOS 13 and up), so there the app asks `wasOpenedAtLogin`. On Windows the entry is
// registered with `path` and `args`, and Electron reads `openAtLogin` back correctly only when it is asked with the
// same `path` and `args`.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface LoginItemApp {
  getLoginItemSettings(options?: { path?: string; args?: string[] }): {
    openAtLogin: boolean;
    wasOpenedAtLogin?: boolean;
  };
  setLoginItemSettings(settings: { openAtLogin: boolean; path?: string; args?: string[] }): void;
}

export interface LoginItem {
  supported: boolean;
  get(): boolean;
  set(on: boolean): void;
  /** True when this launch is the login item's (then the app starts hidden in the tray). */
  openedAtLogin(argv: readonly string[]): boolean;
}

const hiddenArg = '--hidden';

export function autostartPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'autostart', 'assistant-proxy.desktop');
}

/** The .desktop entry; `exec` is the AppImage path when run from one (its mount point changes every launch). */
export function autostartEntry(exec: string, args: string[] = [hiddenArg]): string {
  const quoted = [exec, ...args]
    .map((a) => (/[\s"'\\$`]/.test(a) ? `"${a.replace(/(["\\$`])/g, '\\$1')}"` : a))
    .join(' ');
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Assistant Proxy',
    `Exec=${quoted}`,
    'X-GNOME-Autostart-enabled=true',
    'Terminal=false',
    '',
  ].join('\n');
}

export function createLoginItem(opts: {
  app: LoginItemApp;
  platform: NodeJS.Platform;
  execPath: string;
  /** Arguments before --hidden (the app directory when run as `electron .` in development). */
  execArgs?: string[];
  env?: NodeJS.ProcessEnv;
}): LoginItem {
  if (opts.platform === 'darwin') {
    return {
      supported: true,
      get: () => opts.app.getLoginItemSettings().openAtLogin,
      set: (on) => opts.app.setLoginItemSettings({ openAtLogin: on }),
      openedAtLogin: (argv) => argv.includes(hiddenArg) || opts.app.getLoginItemSettings().wasOpenedAtLogin === true,
    };
  }
  if (opts.platform === 'win32') {
    const entry = { path: opts.execPath, args: [...(opts.execArgs ?? []), hiddenArg] };
    return {
      supported: true,
      get: () => opts.app.getLoginItemSettings(entry).openAtLogin,
      set: (on) => opts.app.setLoginItemSettings({ openAtLogin: on, ...entry }),
      openedAtLogin: (argv) => argv.includes(hiddenArg),
    };
  }
  const env = opts.env ?? process.env;
  const file = autostartPath(env);
  const exec = env.APPIMAGE || opts.execPath;
  return {
    supported: opts.platform === 'linux',
    openedAtLogin: (argv) => argv.includes(hiddenArg),
    get: () => {
      try {
        return readFileSync(file, 'utf8').includes('Exec=');
      } catch {
        return false;
      }
    },
    set: (on) => {
      if (on) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, autostartEntry(exec, [...(opts.execArgs ?? []), hiddenArg]));
      } else {
        rmSync(file, { force: true });
      }
    },
  };
}
