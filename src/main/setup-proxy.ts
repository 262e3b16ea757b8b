// The app's first steps on ready (src/main/start-app.ts), composed like the headless proxy (src/proxy/start-up.ts):
// the provider profile, the settings in electron-store, the usage ledger with its lane alerts, and the proxy's
// controller, started. docs/desktop.md describes them.

import { join } from 'node:path';
import { loadProfile, openUsageLedger, ownerKeyFor } from '../proxy/start-up.js';
import { validateSettings, type Settings } from '../proxy/config.js';
import type { ControlStatus } from '../proxy/control-api.js';
import { ProxyController } from '../proxy/controller.js';
import { createProfile, type Profile } from '../proxy/profile.js';
import { logNotice, watchLaneAlerts } from '../proxy/usage/alert-watch.js';
import type { AppContext } from './app-context.js';
import { statusPushChannel } from './ipc.js';
import { openSettings } from './settings.js';

type StoredSettings = ReturnType<typeof openSettings>;

/** The provider profile, as the headless proxy loads it; a bad ASSISTANT_PROFILE_FILE costs the overrides only. */
export function setupProfile(ctx: AppContext): Profile {
  try {
    return loadProfile(ctx.env);
  } catch (err) {
    const message = `${(err as Error).message}; the built-in profile is in use`;
    ctx.log.error({ err: (err as Error).message }, 'profile overrides ignored');
    ctx.notify('Assistant Proxy profile', message);
    ctx.startupNotices.push(message);
    return createProfile();
  }
}

export async function setupSettings(ctx: AppContext, profile: Profile): Promise<StoredSettings> {
  const createStore = await ctx.host.loadStore();
  return openSettings({
    createStore: (options) => createStore(ctx.userData, options),
    filePath: join(ctx.userData, 'settings.json'),
    profile,
    onWarning: (message) => ctx.controller?.addNotice(message),
  });
}

export function setupLedger(ctx: AppContext, settings: Settings, defaults: Settings, profile: Profile): void {
  const { log } = ctx;
  try {
    // The data directory is the app's user-data folder unless the user chose one (docs/usage.md "Where").
    const config = validateSettings({ ...defaults, ...settings }, profile);
    const usage = openUsageLedger(config, log, profile);
    ctx.usage = usage;
    // Extra usage, a projected limit, usage available again: a notification and a warn line, each once per
    // crossing, as switched in the settings (docs/usage.md "Alerts"); read at each event, so a change applies at once.
    const stop = watchLaneAlerts(usage, {
      kinds: () => new Set((ctx.controller?.getConfig() ?? config).quotaAlerts),
      names: profile.quota,
      notify: (n) => {
        logNotice(log, n);
        ctx.notify(n.title, n.body);
      },
    });
    ctx.electron.app.on('will-quit', () => {
      stop();
      ctx.usage?.close();
    });
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'usage ledger unavailable: the Usage tab and quota line stay empty');
  }
}

export async function setupProxy(
  ctx: AppContext,
  stored: StoredSettings,
  defaults: Settings,
  profile: Profile,
): Promise<void> {
  const { env, log } = ctx;
  // A GUI-launched app has no login-shell PATH: fix it before the proxy looks for the CLI.
  const shellPath = await ctx.host.loginShellPath(env);
  if (shellPath.error) log.warn({ reason: shellPath.error }, 'using the inherited PATH');
  env.PATH = shellPath.path;
  ctx.proxyDeps = { envPath: shellPath.path, childEnv: { ...env, PATH: shellPath.path } };
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
  const controller = new ProxyController({
    settings: stored.settings,
    defaults,
    ownerKey,
    profile,
    logger: log,
    deps: ctx.proxyDeps,
    usage: ctx.usage,
    persist: (settings: Settings) => stored.persist(settings),
  });
  ctx.controller = controller;
  for (const notice of ctx.startupNotices) controller.addNotice(notice);
  for (const warning of stored.warnings) {
    controller.addNotice(warning);
    ctx.notify('Assistant Proxy settings', warning);
  }
  controller.on('status', (status: ControlStatus) => {
    ctx.tray?.refresh();
    ctx.mainWindow?.send(statusPushChannel, status);
  });
  try {
    await controller.start();
  } catch (err) {
    // The status (and tray icon) show the error; the window offers another port.
    ctx.notify('Assistant Proxy could not start', (err as Error).message);
  }
}
