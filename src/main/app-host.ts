// What the desktop app gets from outside: Electron's main-process API and the process around it (argv, platform,
// paths, the settings store's loader, the login shell's PATH, signals). Passed in so that the tests give a small fake
// (test/main/fake-electron.ts) and index.ts the real ones (max-mapper/menubar's habit,
// docs/principles.md "Injected dependencies").

import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App, Clipboard, Dialog, Shell } from 'electron';
import type { IpcMainLike } from './ipc.js';
import type { LoginItemApp } from './login-item.js';
import { type StoreLike, type StoreOptions } from './settings.js';
import { loginShellPath, type ShellPathResult } from './shell-path.js';
import type { TrayElectron } from './tray.js';
import { hasTrayHost } from './tray-host.js';
import type { WindowOptions } from './window.js';

/** The part of Electron's main-process API the app uses; the real module satisfies it. */
export interface AppElectron extends TrayElectron {
  app: Pick<App, 'on' | 'quit' | 'whenReady' | 'getPath' | 'setPath' | 'getAppPath' | 'requestSingleInstanceLock'> &
    LoginItemApp;
  BrowserWindow: WindowOptions['BrowserWindow'];
  Notification: { isSupported(): boolean; new (options: { title: string; body: string }): { show(): void } };
  clipboard: Pick<Clipboard, 'writeText'>;
  dialog: Pick<Dialog, 'showSaveDialog' | 'showOpenDialog'>;
  ipcMain: IpcMainLike;
  shell: Pick<Shell, 'openPath'>;
}

/** The process around the app; defaults are the real ones. */
export interface AppHost {
  argv: readonly string[];
  platform: NodeJS.Platform;
  execPath: string;
  /** True when run as `electron .` (development): the login item must pass the app directory. */
  defaultApp: boolean;
  preloadPath: string;
  indexPath: string;
  /** Loads electron-store (only here: it imports electron itself) and gives the settings store's constructor. */
  loadStore(): Promise<(cwd: string, options?: StoreOptions) => StoreLike>;
  loginShellPath(env: NodeJS.ProcessEnv): Promise<ShellPathResult>;
  hasTrayHost(env: NodeJS.ProcessEnv): Promise<boolean>;
  onSignal(signal: 'SIGINT' | 'SIGTERM', fn: () => void): void;
}

export function defaultHost(): AppHost {
  const here = dirname(fileURLToPath(import.meta.url));
  return {
    argv: process.argv,
    platform: process.platform,
    execPath: process.execPath,
    defaultApp: Boolean(process.defaultApp),
    preloadPath: join(here, 'preload.cjs'),
    indexPath: join(here, '..', 'renderer', 'index.html'),
    loadStore: async () => {
      const { default: Store } = await import('electron-store');
      // clearInvalidConfig off: a corrupt file throws, so openSettings can keep it aside and tell the user.
      // configFileMode: the file holds the access key, so it is written owner-only (docs/security.md "Files").
      return (cwd, options) =>
        new Store<Record<string, unknown>>({
          cwd,
          name: 'settings',
          clearInvalidConfig: false,
          configFileMode: options?.configFileMode,
        });
    },
    loginShellPath: (env) => loginShellPath({ env }),
    hasTrayHost: (env) => hasTrayHost({ env }),
    onSignal: (signal, fn) => void process.on(signal, fn),
  };
}
