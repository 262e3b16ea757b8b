// ControlApi implemented over a ProxyController. Plain Node (no electron import): the main process hands it the
// clipboard and the file picker, and the browser tests use the very same object behind Playwright's bridge, so
// what the window is tested against is what the app runs.

import type { Settings } from '../proxy/config.js';
import type { ControlApi, ControlStatus, SettingsResult } from '../proxy/control-api.js';
import type { ProxyController } from '../proxy/controller.js';

export interface ControlServiceDeps {
  copyText(text: string): void | Promise<void>;
  pickCliPath(): Promise<string | undefined>;
  /** Where the app writes its log, and how to show it (shell.openPath); absent where logs go to a terminal. */
  logPath?: string;
  openPath?(path: string): Promise<string>;
}

/** Keys the window may change; anything else in a patch is refused (the renderer is not trusted with paths it did not pick). */
export const windowSettingKeys = [
  'port',
  'host',
  'accessKey',
  'corsOrigins',
  'modes',
  'rateLimitPerMinute',
  'rateLimitBurst',
  'metricsEnabled',
  'logLevel',
  'cliPath',
] as const;

function emptyMetrics(): Awaited<ReturnType<ControlApi['getMetrics']>> {
  return { requestsTotal: 0, errorsTotal: 0, inFlight: 0, requestsPerMinute: 0, latencyP50Ms: null, latencyP95Ms: null, ttftP50Ms: null, series: [] };
}

export function createControlService(controller: ProxyController, deps: ControlServiceDeps): ControlApi {
  const startSafely = async (): Promise<ControlStatus> => {
    // A failed start (port taken) is a state the window shows, not an exception across IPC.
    try {
      return await controller.start();
    } catch {
      return controller.status();
    }
  };
  return {
    getStatus: async () => controller.status(),
    getSettings: async () => controller.getSettings(),
    updateSettings: async (patch): Promise<SettingsResult> => {
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return { ok: false, message: 'Settings must be an object', status: controller.status() };
      const unknown = Object.keys(patch).filter((k) => !(windowSettingKeys as readonly string[]).includes(k));
      if (unknown.length > 0) {
        const message = `These settings cannot be changed from the window: ${unknown.join(', ')}`;
        return { ok: false, message, errors: Object.fromEntries(unknown.map((k) => [k, message])), status: controller.status() };
      }
      return controller.updateSettings(patch as Settings);
    },
    start: startSafely,
    stop: () => controller.stop(),
    getMetrics: async () => controller.metrics() ?? emptyMetrics(),
    getRecentRequests: async () => controller.recentRequests(),
    getSessions: async () => controller.sessions(),
    endSession: async (id) => controller.endSession(String(id)),
    checkPort: async (port) => {
      if (!Number.isInteger(port) || port < 1 || port > 65535) return { free: false, message: 'Choose a port from 1 to 65535' };
      return controller.checkPort(port);
    },
    copyText: async (text) => {
      if (typeof text !== 'string') throw new TypeError('copyText needs a string');
      await deps.copyText(text);
    },
    pickCliPath: () => deps.pickCliPath(),
    dismissNotice: async (notice) => controller.dismissNotice(String(notice)),
    openLogs: async () => {
      if (!deps.logPath || !deps.openPath) return { error: 'This proxy logs to its terminal (started headless)' };
      // shell.openPath answers an error text, or '' on success.
      const failure = await deps.openPath(deps.logPath);
      return failure ? { path: deps.logPath, error: failure } : { path: deps.logPath };
    },
  };
}
