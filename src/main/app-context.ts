// What the app's setupX() steps share (src/main/start-app.ts runs them in order): Electron and the host passed in,
// the log, the notifier, and the parts each step makes for the later ones (the controller, the window, the tray,
// the usage ledger). One object instead of a closure's variables, so that each step is a plain module a test can run
// with the fake electron.

import type { ProxyController } from '../proxy/controller.js';
import type { Logger, LogTap } from '../proxy/logger.js';
import type { UsageLedger } from '../proxy/usage/ledger.js';
import type { AppElectron, AppHost } from './app-host.js';
import type { AppLog } from './log-file.js';
import type { LoginItem } from './login-item.js';
import type { AppTray } from './tray.js';
import type { TrayExtras } from './tray-model.js';
import type { MainWindow } from './window.js';

export interface AppContext {
  electron: AppElectron;
  env: NodeJS.ProcessEnv;
  host: AppHost;
  userData: string;
  assetsDir: string;
  log: Logger;
  /** The window's live log reads the most recent lines from this tap (already redacted by the logger). */
  logTap: LogTap;
  appLog: AppLog | undefined;
  loginItem: LoginItem;
  notify(title: string, body: string): void;
  controller?: ProxyController;
  mainWindow?: MainWindow;
  tray?: AppTray;
  trayExtras: TrayExtras;
  // The app's usage ledger: it outlives proxy restarts (a port change), so the app owns it and hands it to every
  // proxy as its usage sink. Undefined when it cannot be opened (then the tray counts errors from the recent
  // requests and the Usage tab says the ledger is not running).
  usage?: UsageLedger;
  proxyDeps?: { envPath: string; childEnv: NodeJS.ProcessEnv };
  quitting: boolean;
  /** Notices found before the controller exists (a bad profile file), shown once it does. */
  startupNotices: string[];
}
