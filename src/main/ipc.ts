// IPC between the window and the main process: one channel per ControlApi method, all named here (the preload
// builds the same names; src/main/ipc.test.ts checks the two agree). Every call is checked to come from our own
// window before it reaches the controller: a stray webContents (a devtools extension, a future second window
// showing remote content) must not be able to restart the proxy or read settings.

import type { IpcMainInvokeEvent } from 'electron';
import type { ControlApi } from '../proxy/control-api.js';

/** Every ControlApi method; the type below fails to compile when the interface gains one not listed here. */
export const controlMethods = [
  'getStatus',
  'getSettings',
  'updateSettings',
  'start',
  'stop',
  'getMetrics',
  'getRecentRequests',
  'getSessions',
  'endSession',
  'checkPort',
  'copyText',
  'pickCliPath',
  'dismissNotice',
  'openLogs',
  'getLogs',
  'diagnose',
  'getUsageSummary',
  'getUsageRequests',
  'getUsageRequest',
  'getLimits',
  'exportUsageCsv',
] as const satisfies ReadonlyArray<keyof ControlApi>;

type Unlisted = Exclude<keyof ControlApi, (typeof controlMethods)[number]>;
const everyMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everyMethodListed;

type ControlMethod = (typeof controlMethods)[number];

const channelPrefix = 'control:';
export const channelOf = (method: ControlMethod): string => `${channelPrefix}${method}`;
/** The channel on which the main process pushes status changes to the window. */
export const statusPushChannel = 'control-status';
/** The channel on which the main process asks the window to show a tab (the tray's "Diagnose…"). */
export const showPanelChannel = 'control-show';

export interface ShowPanel {
  panel: 'diagnose' | 'usage' | 'log';
  /** Start the panel's action at once (run diagnose). */
  run?: boolean;
}

export interface IpcMainLike {
  handle(channel: string, listener: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown): void;
  removeHandler(channel: string): void;
}

interface IpcOptions {
  ipcMain: IpcMainLike;
  api: ControlApi;
  /** True when the event comes from our window's webContents showing our page. */
  isTrustedSender(event: IpcMainInvokeEvent): boolean;
  onRefused?(method: ControlMethod, event: IpcMainInvokeEvent): void;
}

/** Registers one handler per method; returns a function that removes them. */
export function registerIpc(opts: IpcOptions): () => void {
  for (const method of controlMethods) {
    opts.ipcMain.handle(channelOf(method), async (event, ...args) => {
      if (!opts.isTrustedSender(event)) {
        opts.onRefused?.(method, event);
        throw new Error(`Refused ${method}: the request did not come from the Assistant Proxy window`);
      }
      const fn = opts.api[method] as (...a: unknown[]) => Promise<unknown>;
      return fn(...args);
    });
  }
  return () => {
    for (const method of controlMethods) opts.ipcMain.removeHandler(channelOf(method));
  };
}
