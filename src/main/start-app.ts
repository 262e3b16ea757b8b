// The desktop app, composed like the headless proxy (src/proxy/compose.ts: the profile with ASSISTANT_PROFILE_FILE,
// the usage ledger with the profile's quota names) plus what only a desktop has: settings in electron-store, a
// window, a tray, IPC, login checks, "Open at login". Electron and everything else that touches the world come in
// as arguments (max-mapper/menubar's habit, STYLE.md habit 9): index.ts passes the real `electron`, the tests a
// small fake (test/main/fake-electron.ts). It reads as a list of setupX() steps (electron/fiddle) over plain
// modules that tests cover on their own: settings.ts, shell-path.ts, control-service.ts, ipc.ts, tray-model.ts,
// login-watcher.ts, window.ts. docs/desktop.md describes the steps and the quit sequence.

import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { App, Clipboard, Dialog, Shell } from 'electron';
import { dataDirDefaults, loadProfile, openUsageLedger, ownerKeyFor } from '../proxy/compose.js';
import { validateSettings, type Settings } from '../proxy/config.js';
import type { ControlStatus } from '../proxy/control-api.js';
import { ProxyController } from '../proxy/controller.js';
import { runDiagnose } from '../proxy/diagnose/index.js';
import { createLogger, LogTap } from '../proxy/logger.js';
import { createProfile, type Profile } from '../proxy/profile.js';
import { isProbeRoute } from '../proxy/route-table.js';
import type { UsageLedger } from '../proxy/usage/ledger.js';
import { createControlService } from './control-service.js';
import { registerIpc, showPanelChannel, statusPushChannel, type IpcMainLike, type ShowPanel } from './ipc.js';
import { openAppLog } from './log-file.js';
import { createLoginItem, type LoginItemApp } from './login-item.js';
import { LoginWatcher } from './login-watcher.js';
import { errorsInLastHour, quotaAlerts, quotaLine, type AlertState } from './quota-alerts.js';
import { logNotice, watchLaneAlerts } from '../proxy/usage/alert-watch.js';
import { openSettings, type StoreLike, type StoreOptions } from './settings.js';
import { loginShellPath, type ShellPathResult } from './shell-path.js';
import { setupTray as createAppTray, type AppTray, type TrayElectron } from './tray.js';
import { hasTrayHost } from './tray-host.js';
import { clientBaseUrl, copyTextFor, toggledModes, type TrayAction, type TrayExtras } from './tray-model.js';
import { createMainWindow, type MainWindow, type WindowOptions } from './window.js';

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

export interface RunningApp {
  /** Resolves when every setup step has run (or at once for a second instance, which only quits). */
  ready: Promise<void>;
  controller(): ProxyController | undefined;
  usage(): UsageLedger | undefined;
}

/** How long streams may finish when the user quits: short, the user asked to leave. */
const QUIT_GRACE_MS = 2000;
const LOGIN_CHECK_MS = 5 * 60_000;
/** How often the tray's quota line and error count (and the quota notifications) are brought up to date. */
const USAGE_WATCH_MS = 30_000;

function defaultHost(): AppHost {
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

export function startApp(
  electron: AppElectron,
  env: NodeJS.ProcessEnv,
  hostOverrides: Partial<AppHost> = {},
): RunningApp {
  const host: AppHost = { ...defaultHost(), ...hostOverrides };
  const { app, BrowserWindow, Notification, clipboard, dialog, ipcMain, shell } = electron;
  const assetsDir = join(app.getAppPath(), 'assets');

  let controller: ProxyController | undefined;
  let mainWindow: MainWindow | undefined;
  let tray: AppTray | undefined;
  let trayExtras: TrayExtras = {};
  // The app's usage ledger: it outlives proxy restarts (a port change), so the app owns it and hands it to every
  // proxy as its usage sink. Undefined when it cannot be opened (then the tray counts errors from the recent
  // requests and the Usage tab says the ledger is not running).
  let usage: UsageLedger | undefined;
  let proxyDeps: { envPath: string; childEnv: NodeJS.ProcessEnv } | undefined;
  let quitting = false;
  let stopped = false;
  /** Notices found before the controller exists (a bad profile file), shown once it does. */
  const startupNotices: string[] = [];
  const loginItem = createLoginItem({
    app,
    platform: host.platform,
    execPath: host.execPath,
    execArgs: host.defaultApp && host.argv[1] ? [resolve(host.argv[1])] : [],
    env,
  });

  // Tests (and users keeping two profiles apart) can point the app at another settings directory; it must be
  // switched before the single-instance lock, which lives in it.
  if (env.ASSISTANT_PROXY_USER_DATA) app.setPath('userData', resolve(env.ASSISTANT_PROXY_USER_DATA));
  const userData = app.getPath('userData');
  // Only the first instance owns the log file: a second launch (which only hands over) must not rotate it.
  const primary = app.requestSingleInstanceLock();
  const appLog = primary ? openAppLog(join(userData, 'logs')) : undefined;
  // The window's live log reads the most recent lines from this tap (already redacted by the logger).
  const logTap = new LogTap(2000);
  const log = createLogger(env.LOG_LEVEL === 'silent' ? 'silent' : 'info', appLog?.destination, logTap);

  const notify = (title: string, body: string): void => {
    if (Notification.isSupported()) new Notification({ title, body }).show();
  };

  if (!primary) {
    // A second launch (double-click while running) shows the first instance's window instead.
    app.quit();
    return { ready: Promise.resolve(), controller: () => undefined, usage: () => undefined };
  }

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
  for (const signal of ['SIGINT', 'SIGTERM'] as const) host.onSignal(signal, () => app.quit());

  const ready = app.whenReady().then(onReady);
  return { ready, controller: () => controller, usage: () => usage };

  async function onReady(): Promise<void> {
    const profile = setupProfile();
    const stored = await setupSettings(profile);
    const defaults = dataDirDefaults(userData);
    setupLedger(stored.settings, defaults, profile);
    await setupProxy(stored, defaults, profile);
    setupWindow();
    await setupTray();
    setupIpc();
    setupLoginWatcher();
    setupUsageWatch();
    // Launched at login: the tray icon is enough (login-item.ts says how each platform tells).
    if (!loginItem.openedAtLogin(host.argv) || !tray) mainWindow!.show();
  }

  /** The provider profile, as the headless proxy loads it; a bad ASSISTANT_PROFILE_FILE costs the overrides only. */
  function setupProfile(): Profile {
    try {
      return loadProfile(env);
    } catch (err) {
      const message = `${(err as Error).message}; the built-in profile is in use`;
      log.error({ err: (err as Error).message }, 'profile overrides ignored');
      notify('Assistant Proxy profile', message);
      startupNotices.push(message);
      return createProfile();
    }
  }

  async function setupSettings(profile: Profile): Promise<ReturnType<typeof openSettings>> {
    const createStore = await host.loadStore();
    return openSettings({
      createStore: (options) => createStore(userData, options),
      filePath: join(userData, 'settings.json'),
      profile,
      onWarning: (message) => controller?.addNotice(message),
    });
  }

  function setupLedger(settings: Settings, defaults: Settings, profile: Profile): void {
    try {
      // The data directory is the app's user-data folder unless the user chose one (docs/usage.md "Where").
      const config = validateSettings({ ...defaults, ...settings }, profile);
      usage = openUsageLedger(config, log, profile);
      // Extra usage, a projected limit, usage available again: a notification and a warn line, each once per
      // crossing, as switched in the settings (docs/usage.md "Alerts"); read at each event, so a change applies at once.
      const stop = watchLaneAlerts(usage, {
        kinds: () => new Set((controller?.getConfig() ?? config).quotaAlerts),
        names: profile.quota,
        notify: (n) => {
          logNotice(log, n);
          notify(n.title, n.body);
        },
      });
      app.on('will-quit', () => {
        stop();
        usage?.close();
      });
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'usage ledger unavailable: the Usage tab and quota line stay empty');
    }
  }

  async function setupProxy(
    stored: ReturnType<typeof openSettings>,
    defaults: Settings,
    profile: Profile,
  ): Promise<void> {
    // A GUI-launched app has no login-shell PATH: fix it before the proxy looks for the CLI.
    const shellPath = await host.loginShellPath(env);
    if (shellPath.error) log.warn({ reason: shellPath.error }, 'using the inherited PATH');
    env.PATH = shellPath.path;
    proxyDeps = { envPath: shellPath.path, childEnv: { ...env, PATH: shellPath.path } };
    // The owner's key (docs/security.md "The owner's key"): the window reads usage over IPC and needs none; clients
    // and scripts of the owner read it from the data directory.
    let ownerKey: string | undefined;
    try {
      const key = ownerKeyFor(validateSettings({ ...defaults, ...stored.settings }, profile));
      ownerKey = key.owner?.key;
      if (key.error)
        log.warn({ reason: key.error }, "the owner's key could not be saved: usage data stays closed to clients");
    } catch {
      // Bad stored settings: the controller reports them.
    }
    controller = new ProxyController({
      settings: stored.settings,
      defaults,
      ownerKey,
      profile,
      logger: log,
      deps: proxyDeps,
      usage,
      persist: (settings: Settings) => stored.persist(settings),
    });
    for (const notice of startupNotices) controller.addNotice(notice);
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
      preloadPath: host.preloadPath,
      indexPath: host.indexPath,
      iconPath: join(assetsDir, 'icons', '512x512.png'),
      hideOnClose: () => !quitting && tray !== undefined,
    });
  }

  async function setupTray(): Promise<void> {
    if (!(await host.hasTrayHost(env))) {
      log.info('no tray host found: the window is the way to reach the app, and closing it quits');
      return;
    }
    tray = createAppTray({
      electron,
      assetsDir,
      platform: host.platform,
      status: () => controller!.status(),
      prefs: () => ({ openAtLogin: loginItem.get(), openAtLoginSupported: loginItem.supported }),
      extras: () => trayExtras,
      onAction: (action) => void onTrayAction(action),
    });
  }

  async function onTrayAction(action: TrayAction): Promise<void> {
    const ctl = controller!;
    const status = ctl.status();
    switch (action) {
      case 'start':
        await ctl.start().catch((err: Error) => notify('Assistant Proxy could not start', err.message));
        break;
      case 'stop':
        await ctl.stop();
        break;
      case 'copy-compat-url':
      case 'copy-native-url':
        clipboard.writeText(copyTextFor(action, status));
        break;
      case 'open-window':
        mainWindow!.show();
        break;
      case 'diagnose':
        mainWindow!.show();
        mainWindow!.send(showPanelChannel, { panel: 'diagnose', run: true } satisfies ShowPanel);
        break;
      case 'toggle-open-at-login':
        loginItem.set(!loginItem.get());
        break;
      case 'quit':
        app.quit();
        return;
      default: {
        const mode = action.slice('toggle-mode:'.length) as ControlStatus['modes'][number];
        const result = await ctl.updateSettings({ modes: toggledModes(status.modes, mode) });
        if (!result.ok) notify('Modes not changed', result.message ?? 'The change was refused');
      }
    }
    tray?.refresh();
  }

  function setupIpc(): void {
    const ctl = controller!;
    const win = mainWindow!;
    const api = createControlService(ctl, {
      copyText: (text) => clipboard.writeText(text),
      logPath: appLog?.path,
      logTap,
      usage,
      // Through the running proxy (what clients see); the CLI probe gets the same PATH as the proxy's children.
      diagnose: () => {
        const status = ctl.status();
        return runDiagnose(ctl.getConfig(), {
          deps: proxyDeps,
          proxyUrl: status.state === 'running' ? clientBaseUrl(status) : undefined,
          usage,
        });
      },
      saveCsv: async (suggestedName, csv) => {
        const options = {
          title: 'Export usage as CSV',
          defaultPath: join(app.getPath('downloads'), suggestedName),
          filters: [{ name: 'CSV', extensions: ['csv'] }],
        };
        const result = win.window
          ? await dialog.showSaveDialog(win.window, options)
          : await dialog.showSaveDialog(options);
        if (result.canceled || !result.filePath) return undefined;
        await writeFile(result.filePath, csv, { mode: 0o600 });
        return result.filePath;
      },
      openPath: (path) => shell.openPath(path),
      pickCliPath: async () => {
        const options = {
          title: 'Choose the assistant CLI executable',
          properties: ['openFile' as const, 'showHiddenFiles' as const],
        };
        const result = win.window
          ? await dialog.showOpenDialog(win.window, options)
          : await dialog.showOpenDialog(options);
        return result.canceled ? undefined : result.filePaths[0];
      },
    });
    registerIpc({
      ipcMain,
      api,
      isTrustedSender: (event) => win.isOurs(event.sender, event.senderFrame?.url),
      onRefused: (method, event) =>
        log.warn({ method, url: event.senderFrame?.url }, 'refused an IPC call from outside the window'),
    });
  }

  function setupLoginWatcher(): void {
    const ctl = controller!;
    const watcher = new LoginWatcher({ refresh: () => ctl.refreshProbe(), intervalMs: LOGIN_CHECK_MS });
    watcher.on('transition', (t) => {
      if (t.notification) notify(t.notification.title, t.notification.body);
      tray?.refresh();
    });
    watcher.on('error', (err) => log.warn({ err: err.message }, 'login check failed'));
    ctl.on('status', (status: ControlStatus) => watcher.observe(status));
    watcher.observe(ctl.status());
    watcher.start();
    app.on('will-quit', () => watcher.stop());
  }

  /** Keeps the tray's quota line and error count current, and notifies at 80 % / 95 % and on a quota rejection. */
  function setupUsageWatch(): void {
    const ctl = controller!;
    let alerts: AlertState = {};
    const tick = async () => {
      const now = Date.now();
      const windows = usage ? await usage.quotaWindows() : [];
      const errors = usage
        ? (await usage.summary(now - 3_600_000, now, 'mode')).total.errors
        : errorsInLastHour(
            ctl
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
    const timer = setInterval(
      () => void tick().catch((err: Error) => log.warn({ err: err.message }, 'usage watch failed')),
      USAGE_WATCH_MS,
    );
    app.on('will-quit', () => clearInterval(timer));
    void tick().catch(() => undefined);
  }
}
