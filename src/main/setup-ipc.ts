// The window's ControlApi (control-service.ts) over IPC (ipc.ts), with what only the desktop can do: the clipboard,
// save and open dialogs, opening a path, and Diagnose through the running proxy.

import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runDiagnose } from '../proxy/diagnose/index.js';
import type { AppContext } from './app-context.js';
import { createControlService } from './control-service.js';
import { registerIpc } from './ipc.js';
import { clientBaseUrl } from '../shared/endpoints.js';

export function setupIpc(ctx: AppContext): void {
  const { app, clipboard, dialog, ipcMain, shell } = ctx.electron;
  const { log, usage } = ctx;
  const ctl = ctx.controller!;
  const win = ctx.mainWindow!;
  const api = createControlService(ctl, {
    copyText: (text) => clipboard.writeText(text),
    logPath: ctx.appLog?.path,
    logTap: ctx.logTap,
    usage,
    // Through the running proxy (what clients see); the CLI probe gets the same PATH as the proxy's children.
    diagnose: () => {
      const status = ctl.status();
      return runDiagnose(ctl.getConfig(), {
        deps: ctx.proxyDeps,
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
