// The Electron main process: the only file that imports electron at runtime. It reads as a list of setupX()
// steps (electron/fiddle) over plain modules that tests cover without Electron: settings.ts, shell-path.ts,
// control-service.ts, ipc.ts, tray-model.ts, login-watcher.ts, window.ts.

import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import electron from 'electron';
import Store from 'electron-store';
import { validateSettings, type Settings } from '../proxy/config.js';
import type { ControlStatus } from '../proxy/control-api.js';
import { ProxyController } from '../proxy/controller.js';
import { runDiagnose } from '../proxy/diagnose/index.js';
import { createLogger, LogTap } from '../proxy/logger.js';
import { isProbeRoute } from '../proxy/route-table.js';
import type { UsageLedger } from '../proxy/usage/index.js';
import { createControlService } from './control-service.js';
import { registerIpc, showPanelChannel, statusPushChannel, type ShowPanel } from './ipc.js';
import { openAppLog } from './log-file.js';
import { errorsInLastHour, quotaAlerts, quotaLine, type AlertState } from './quota-alerts.js';
import { createLoginItem, hiddenArg } from './login-item.js';
import { LoginWatcher } from './login-watcher.js';
import { openSettings } from './settings.js';
import { loginShellPath } from './shell-path.js';
import { setupTray as createAppTray, type AppTray } from './tray.js';
import { hasTrayHost } from './tray-host.js';
import { clientBaseUrl, copyTextFor, toggledModes, type TrayAction, type TrayExtras } from './tray-model.js';
import { createMainWindow, type MainWindow } from './window.js';

const { app, BrowserWindow, Menu, Notification, Tray, clipboard, dialog, ipcMain, nativeImage, shell } = electron;

const here = dirname(fileURLToPath(import.meta.url));
const paths = {
  preload: join(here, 'preload.cjs'),
  index: join(here, '..', 'renderer', 'index.html'),
  assets: join(app.getAppPath(), 'assets'),
};
/** How long streams may finish when the user quits: short, the user asked to leave. */
const QUIT_GRACE_MS = 2000;
const LOGIN_CHECK_MS = 5 * 60_000;
/** How often the tray's quota line and error count (and the quota notifications) are brought up to date. */
const USAGE_WATCH_MS = 30_000;

let controller: ProxyController;
let mainWindow: MainWindow;
let tray: AppTray | undefined;
let trayHost = true;
let trayExtras: TrayExtras = {};
// The app's usage ledger (src/proxy/usage/, one SQLite file in the data directory): the Usage tab, the tray's
// quota line and the quota notifications read it. It outlives proxy restarts (a port change), so the app owns it
// and the proxy is handed it as its usage sink. Undefined when it cannot be opened (then the tray counts errors
// from the recent-requests list and the Usage tab says the ledger is not running).
let usage: UsageLedger | undefined;
let quitting = false;
let stopped = false;
const loginItem = createLoginItem({
  app,
  platform: process.platform,
  execPath: process.execPath,
  execArgs: process.defaultApp && process.argv[1] ? [resolve(process.argv[1])] : [],
});
// Tests (and users keeping two profiles apart) can point the app at another settings directory.
if (process.env.ASSISTANT_PROXY_USER_DATA) app.setPath('userData', resolve(process.env.ASSISTANT_PROXY_USER_DATA));
// One logger for the app and the proxy: stdout (a terminal, if any) and <userData>/logs/assistant-proxy.log.
// Only the first instance owns the log file: a second launch (which only hands over to the first) must not
// rotate the file the first one is writing.
const primary = app.requestSingleInstanceLock();
const appLog = primary ? openAppLog(join(app.getPath('userData'), 'logs')) : undefined;
// The window's live log reads the most recent lines from this tap (already redacted by the logger).
const logTap = new LogTap(2000);
const log = createLogger(process.env.LOG_LEVEL === 'silent' ? 'silent' : 'info', appLog?.destination, logTap);

function notify(title: string, body: string): void {
  if (Notification.isSupported()) new Notification({ title, body }).show();
}

if (!primary) {
  // A second launch (double-click while running) shows the first instance's window instead.
  app.quit();
} else {
  app.on('second-instance', () => mainWindow?.show());
  app.on('before-quit', (event) => {
    quitting = true;
    if (stopped || !controller) return;
    // End the proxy and every CLI child before Electron exits (STYLE.md habit 10).
    event.preventDefault();
    void controller
      .stop(QUIT_GRACE_MS)
      .catch((err: Error) => log.error({ err: err.message }, 'stopping the proxy on quit failed'))
      .finally(() => {
        stopped = true;
        app.quit();
      });
  });
  // With a tray the app lives on without windows; without one, the last window closing means quit.
  app.on('window-all-closed', () => {
    if (!tray) app.quit();
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());
  void app.whenReady().then(onReady);
}

async function onReady(): Promise<void> {
  const stored = setupSettings();
  await setupLedger(stored);
  await setupProxy(stored);
  setupWindow();
  await setupTray();
  setupIpc();
  setupLoginWatcher();
  setupUsageWatch();
  if (!process.argv.includes(hiddenArg) || !tray) mainWindow.show();
}

function setupSettings(): ReturnType<typeof openSettings> {
  const cwd = app.getPath('userData');
  const stored = openSettings({
    // clearInvalidConfig off: a corrupt file throws, so openSettings can keep it aside and tell the user.
    createStore: () => new Store<Record<string, unknown>>({ cwd, name: 'settings', clearInvalidConfig: false }),
    filePath: join(cwd, 'settings.json'),
    onWarning: (message) => controller?.addNotice(message),
  });
  return stored;
}

async function setupLedger(stored: ReturnType<typeof openSettings>): Promise<void> {
  try {
    // Loaded on demand: the native SQLite module must match Electron's ABI (electron-builder rebuilds it when
    // packaging); a mismatch in a development run must cost the Usage tab, not the app.
    const { openLedger } = await import('../proxy/usage/index.js');
    usage = openLedger(validateSettings(stored.settings), log);
    app.on('will-quit', () => usage?.close());
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'usage ledger unavailable: the Usage tab and quota line stay empty');
  }
}

let proxyDeps: { envPath: string; childEnv: NodeJS.ProcessEnv } | undefined;

async function setupProxy(stored: ReturnType<typeof openSettings>): Promise<void> {
  // A GUI-launched app has no login-shell PATH: fix it before the proxy looks for the CLI.
  const shellPath = await loginShellPath();
  if (shellPath.error) log.warn({ reason: shellPath.error }, 'using the inherited PATH');
  process.env.PATH = shellPath.path;
  proxyDeps = { envPath: shellPath.path, childEnv: { ...process.env, PATH: shellPath.path } };
  controller = new ProxyController({
    settings: stored.settings,
    logger: log,
    deps: proxyDeps,
    usage,
    persist: (settings: Settings) => stored.persist(settings),
  });
  for (const warning of stored.warnings) {
    controller.addNotice(warning);
    notify('Assistant Proxy settings', warning);
  }
  controller.on('status', (status: ControlStatus) => {
    tray?.refresh();
    mainWindow?.send(statusPushChannel, status);
  });
  try {
    await controller.start();
  } catch (err) {
    // The status (and tray icon) show the error; the window offers another port.
    notify('Assistant Proxy could not start', (err as Error).message);
  }
}

function setupWindow(): void {
  mainWindow = createMainWindow({
    BrowserWindow,
    preloadPath: paths.preload,
    indexPath: paths.index,
    iconPath: join(paths.assets, 'icons', '512x512.png'),
    hideOnClose: () => !quitting && tray !== undefined,
  });
}

async function setupTray(): Promise<void> {
  trayHost = await hasTrayHost();
  if (!trayHost) {
    log.info('no tray host found: the window is the way to reach the app, and closing it quits');
    return;
  }
  tray = createAppTray({
    electron: { Tray, Menu, nativeImage },
    assetsDir: paths.assets,
    platform: process.platform,
    status: () => controller.status(),
    prefs: () => ({ openAtLogin: loginItem.get(), openAtLoginSupported: loginItem.supported }),
    extras: () => trayExtras,
    onAction: (action) => void onTrayAction(action),
  });
}

async function onTrayAction(action: TrayAction): Promise<void> {
  const status = controller.status();
  switch (action) {
    case 'start':
      await controller.start().catch((err: Error) => notify('Assistant Proxy could not start', err.message));
      break;
    case 'stop':
      await controller.stop();
      break;
    case 'copy-compat-url':
    case 'copy-native-url':
      clipboard.writeText(copyTextFor(action, status));
      break;
    case 'open-window':
      mainWindow.show();
      break;
    case 'diagnose':
      mainWindow.show();
      mainWindow.send(showPanelChannel, { panel: 'diagnose', run: true } satisfies ShowPanel);
      break;
    case 'toggle-open-at-login':
      loginItem.set(!loginItem.get());
      break;
    case 'quit':
      app.quit();
      return;
    default: {
      const mode = action.slice('toggle-mode:'.length) as ControlStatus['modes'][number];
      const result = await controller.updateSettings({ modes: toggledModes(status.modes, mode) });
      if (!result.ok) notify('Modes not changed', result.message ?? 'The change was refused');
    }
  }
  tray?.refresh();
}

function setupIpc(): void {
  const api = createControlService(controller, {
    copyText: (text) => clipboard.writeText(text),
    logPath: appLog?.path,
    logTap,
    usage,
    // Through the running proxy (what clients see); the CLI probe gets the same PATH as the proxy's children.
    diagnose: () => {
      const status = controller.status();
      return runDiagnose(controller.getConfig(), { deps: proxyDeps, proxyUrl: status.state === 'running' ? clientBaseUrl(status) : undefined });
    },
    saveCsv: async (suggestedName, csv) => {
      const options = { title: 'Export usage as CSV', defaultPath: join(app.getPath('downloads'), suggestedName), filters: [{ name: 'CSV', extensions: ['csv'] }] };
      const win = mainWindow.window;
      const result = win ? await dialog.showSaveDialog(win, options) : await dialog.showSaveDialog(options);
      if (result.canceled || !result.filePath) return undefined;
      await writeFile(result.filePath, csv, { mode: 0o600 });
      return result.filePath;
    },
    openPath: (path) => shell.openPath(path),
    pickCliPath: async () => {
      const options = { title: 'Choose the assistant CLI executable', properties: ['openFile' as const, 'showHiddenFiles' as const] };
      const win = mainWindow.window;
      const result = win ? await dialog.showOpenDialog(win, options) : await dialog.showOpenDialog(options);
      return result.canceled ? undefined : result.filePaths[0];
    },
  });
  registerIpc({
    ipcMain,
    api,
    isTrustedSender: (event) => mainWindow.isOurs(event.sender, event.senderFrame?.url),
    onRefused: (method, event) => log.warn({ method, url: event.senderFrame?.url }, 'refused an IPC call from outside the window'),
  });
}

function setupLoginWatcher(): void {
  const watcher = new LoginWatcher({ refresh: () => controller.refreshProbe(), intervalMs: LOGIN_CHECK_MS });
  watcher.on('transition', (t) => {
    if (t.notification) notify(t.notification.title, t.notification.body);
    tray?.refresh();
  });
  watcher.on('error', (err) => log.warn({ err: err.message }, 'login check failed'));
  controller.on('status', (status: ControlStatus) => watcher.observe(status));
  watcher.observe(controller.status());
  watcher.start();
  app.on('will-quit', () => watcher.stop());
}

/** Keeps the tray's quota line and error count current, and notifies at 80 % / 95 % and on a quota rejection. */
function setupUsageWatch(): void {
  let alerts: AlertState = {};
  const tick = async () => {
    const now = Date.now();
    const windows = usage ? await usage.quotaWindows() : [];
    const errors = usage
      ? (await usage.summary(now - 3_600_000, now, 'mode')).total.errors
      : errorsInLastHour(
          controller
            .recentRequests()
            .filter((r) => !isProbeRoute(r.route))
            .map((r) => ({ startedAt: Date.parse(r.time), failed: r.status >= 400 || r.errorType !== undefined })),
          now,
        );
    trayExtras = { quotaLine: quotaLine(windows, now), errorsLastHour: errors };
    const due = quotaAlerts(alerts, windows);
    alerts = due.state;
    for (const n of due.notices) notify(n.title, n.body);
    tray?.refresh();
  };
  const timer = setInterval(() => void tick().catch((err: Error) => log.warn({ err: err.message }, 'usage watch failed')), USAGE_WATCH_MS);
  app.on('will-quit', () => clearInterval(timer));
  void tick().catch(() => undefined);
}
