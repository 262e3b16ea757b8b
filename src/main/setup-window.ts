// The dashboard window (window.ts): hidden rather than closed while a tray keeps the app reachable.

import { join } from 'node:path';
import type { AppContext } from './app-context.js';
import { createMainWindow } from './window.js';

export function setupWindow(ctx: AppContext): void {
  ctx.mainWindow = createMainWindow({
    BrowserWindow: ctx.electron.BrowserWindow,
    preloadPath: ctx.host.preloadPath,
    indexPath: ctx.host.indexPath,
    iconPath: join(ctx.assetsDir, 'icons', '512x512.png'),
    hideOnClose: () => !ctx.quitting && ctx.tray !== undefined,
  });
}
