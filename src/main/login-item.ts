// "Open at login". macOS and Windows use Electron's login items; Linux has none in Electron, so we write an XDG
// autostart entry (~/.config/autostart/assistant-proxy.desktop), the freedesktop way every desktop honours.
// Launched at login the app starts hidden (--hidden): the tray icon is enough.

import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export interface LoginItemApp {
  getLoginItemSettings(): { openAtLogin: boolean };
  setLoginItemSettings(settings: { openAtLogin: boolean; args?: string[]; openAsHidden?: boolean }): void;
}

export interface LoginItem {
  supported: boolean;
  get(): boolean;
  set(on: boolean): void;
}

export const hiddenArg = '--hidden';

export function autostartPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'autostart', 'assistant-proxy.desktop');
}

/** The .desktop entry; `exec` is the AppImage path when run from one (its mount point changes every launch). */
export function autostartEntry(exec: string, args: string[] = [hiddenArg]): string {
  const quoted = [exec, ...args].map((a) => (/[\s"'\\$`]/.test(a) ? `"${a.replace(/(["\\$`])/g, '\\$1')}"` : a)).join(' ');
  return ['[Desktop Entry]', 'Type=Application', 'Name=Assistant Proxy', `Exec=${quoted}`, 'X-GNOME-Autostart-enabled=true', 'Terminal=false', ''].join('\n');
}

export function createLoginItem(opts: {
  app: LoginItemApp;
  platform: NodeJS.Platform;
  execPath: string;
  /** Arguments before --hidden (the app directory when run as `electron .` in development). */
  execArgs?: string[];
  env?: NodeJS.ProcessEnv;
}): LoginItem {
  if (opts.platform === 'darwin' || opts.platform === 'win32') {
    return {
      supported: true,
      get: () => opts.app.getLoginItemSettings().openAtLogin,
      set: (on) => opts.app.setLoginItemSettings({ openAtLogin: on, openAsHidden: true, args: [...(opts.execArgs ?? []), hiddenArg] }),
    };
  }
  const env = opts.env ?? process.env;
  const file = autostartPath(env);
  const exec = env.APPIMAGE || opts.execPath;
  return {
    supported: opts.platform === 'linux',
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
