// The desktop app, composed like the headless proxy (src/proxy/start-up.ts: the profile with ASSISTANT_PROFILE_FILE,
// the usage ledger with the profile's quota names) plus what only a desktop has: settings in electron-store, a
// window, a tray, IPC, login checks, "Open at login". Electron and everything else that touches the world come in
// as arguments (app-host.ts; docs/principles.md "Injected dependencies"): index.ts passes the real `electron`, the
// tests a small fake (test/main/fake-electron.ts). It reads as a list of setupX() steps (electron/fiddle), each a
// module over one shared AppContext (app-context.ts): setup-proxy.ts, setup-window.ts, setup-tray.ts,
// setup-ipc.ts, setup-watches.ts, and the quit sequence below. docs/desktop.md describes the steps.

import { join, resolve } from 'node:path';
import { dataDirDefaults } from '../proxy/start-up.js';
import type { ProxyController } from '../proxy/controller.js';
import { createLogger, LogTap } from '../proxy/logger.js';
import type { UsageLedger } from '../proxy/usage/ledger.js';
import type { AppContext } from './app-context.js';
import { defaultHost, type AppElectron, type AppHost } from './app-host.js';
import { openAppLog } from './log-file.js';
import { createLoginItem } from './login-item.js';
import { setupIpc } from './setup-ipc.js';
import { setupLedger, setupProfile, setupProxy, setupSettings } from './setup-proxy.js';
import { setupTray } from './setup-tray.js';
import { setupLoginWatch, setupUsageWatch } from './setup-watches.js';
import { setupWindow } from './setup-window.js';

export interface RunningApp {
  /** Resolves when every setup step has run (or at once for a second instance, which only quits). */
  ready: Promise<void>;
  controller(): ProxyController | undefined;
  usage(): UsageLedger | undefined;
}

/** How long streams may finish when the user quits: short, the user asked to leave. */
const QUIT_GRACE_MS = 2000;

export function startApp(
  electron: AppElectron,
  env: NodeJS.ProcessEnv,
  hostOverrides: Partial<AppHost> = {},
): RunningApp {
  const host: AppHost = { ...defaultHost(), ...hostOverrides };
  const { app, Notification } = electron;

  // Tests (and users keeping two profiles apart) can point the app at another settings directory; it must be
  // switched before the single-instance lock, which lives in it.
  if (env.ASSISTANT_PROXY_USER_DATA) app.setPath('userData', resolve(env.ASSISTANT_PROXY_USER_DATA));
  const userData = app.getPath('userData');
  // Only the first instance owns the log file: a second launch (which only hands over) must not rotate it.
  const primary = app.requestSingleInstanceLock();
  const appLog = primary ? openAppLog(join(userData, 'logs')) : undefined;
  const logTap = new LogTap(2000);
  const ctx: AppContext = {
    electron,
    env,
    host,
    userData,
    assetsDir: join(app.getAppPath(), 'assets'),
    log: createLogger(env.LOG_LEVEL === 'silent' ? 'silent' : 'info', appLog?.destination, logTap),
    logTap,
    appLog,
    loginItem: createLoginItem({
      app,
      platform: host.platform,
      execPath: host.execPath,
      execArgs: host.defaultApp && host.argv[1] ? [resolve(host.argv[1])] : [],
      env,
    }),
    notify: (title, body) => {
      if (Notification.isSupported()) new Notification({ title, body }).show();
    },
    trayExtras: {},
    quitting: false,
    startupNotices: [],
  };

  if (!primary) {
    // A second launch (double-click while running) shows the first instance's window instead.
    app.quit();
    return { ready: Promise.resolve(), controller: () => undefined, usage: () => undefined };
  }

  setupQuit(ctx);
  const ready = app.whenReady().then(() => onReady(ctx));
  return { ready, controller: () => ctx.controller, usage: () => ctx.usage };
}

async function onReady(ctx: AppContext): Promise<void> {
  const profile = setupProfile(ctx);
  const stored = await setupSettings(ctx, profile);
  const defaults = dataDirDefaults(ctx.userData);
  setupLedger(ctx, stored.settings, defaults, profile);
  await setupProxy(ctx, stored, defaults, profile);
  setupWindow(ctx);
  await setupTray(ctx);
  setupIpc(ctx);
  setupLoginWatch(ctx);
  setupUsageWatch(ctx);
  // Launched at login: the tray icon is enough (login-item.ts says how each platform tells).
  if (!ctx.loginItem.openedAtLogin(ctx.host.argv) || !ctx.tray) ctx.mainWindow!.show();
}

/** The quit sequence: a second launch shows the window; quitting stops the proxy and its CLI children first. */
function setupQuit(ctx: AppContext): void {
  const { app } = ctx.electron;
  let stopped = false;
  app.on('second-instance', () => ctx.mainWindow?.show());
  app.on('before-quit', (event) => {
    ctx.quitting = true;
    const controller = ctx.controller;
    if (stopped || !controller) return;
    // End the proxy and every CLI child before Electron exits (docs/principles.md "Child processes").
    event.preventDefault();
    void controller
      .stop(QUIT_GRACE_MS)
      .catch((err: Error) => ctx.log.error({ err: err.message }, 'stopping the proxy on quit failed'))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  });
  // With a tray the app lives on without windows; without one, the last window closing means quit.
  app.on('window-all-closed', () => {
    if (!ctx.tray) app.quit();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) ctx.host.onSignal(signal, () => app.quit());
}
