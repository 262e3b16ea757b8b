// The window's only door to the main process: `window.control`, a ControlApi over ipcRenderer.invoke.
// CommonJS (.cts -> .cjs) because a sandboxed preload cannot be an ES module, and self-contained because a
// sandboxed preload can require only `electron`: the channel names repeat ipc.ts's (`control:<method>`), and
// src/main/ipc.test.ts checks the two lists agree.

import { contextBridge, ipcRenderer } from 'electron';
import type { ControlApi, ControlStatus } from '../proxy/control-api.js';

const methods: Record<keyof ControlApi, true> = {
  getStatus: true,
  getSettings: true,
  updateSettings: true,
  start: true,
  stop: true,
  getMetrics: true,
  getRecentRequests: true,
  getSessions: true,
  endSession: true,
  checkPort: true,
  copyText: true,
  pickCliPath: true,
  dismissNotice: true,
  openLogs: true,
  getLogs: true,
  diagnose: true,
  getUsageSummary: true,
  getUsageRequests: true,
  getUsageRequest: true,
  getLimits: true,
  exportUsageCsv: true,
};

const control: Record<string, unknown> = {};
for (const method of Object.keys(methods)) {
  control[method] = (...args: unknown[]) => ipcRenderer.invoke(`control:${method}`, ...args);
}
// Status pushes (tray start/stop, login changes) so the window updates without waiting for its next poll.
control.onStatus = (listener: (status: ControlStatus) => void) => {
  const wrapped = (_event: unknown, status: ControlStatus) => listener(status);
  ipcRenderer.on('control-status', wrapped);
  return () => ipcRenderer.removeListener('control-status', wrapped);
};

// The tray asking for a tab ("Diagnose…" shows the Diagnose tab and runs it); ipc.ts names the channel.
control.onShow = (listener: (what: { panel: string; run?: boolean }) => void) => {
  const wrapped = (_event: unknown, what: { panel: string; run?: boolean }) => listener(what);
  ipcRenderer.on('control-show', wrapped);
  return () => ipcRenderer.removeListener('control-show', wrapped);
};

contextBridge.exposeInMainWorld('control', control);
