// The dashboard window: created on first use, locked down (context isolation, no Node, sandboxed renderer, no
// navigation away from our page, no new windows, no permission granted). Closing it hides it while the tray can bring it back; with no
// tray host (a Linux desktop without a status-notifier host) closing it quits, so the user is never left with an
// app they cannot reach or end (docs/lessons.md "Desktop app habits").

import { pathToFileURL } from 'node:url';
import type { BrowserWindow, BrowserWindowConstructorOptions, WebContents } from 'electron';

export interface WindowOptions {
  BrowserWindow: new (options: BrowserWindowConstructorOptions) => BrowserWindow;
  preloadPath: string;
  indexPath: string;
  iconPath?: string;
  /** True while closing the window should only hide it (a tray exists and the app is not quitting). */
  hideOnClose(): boolean;
}

export interface MainWindow {
  show(): void;
  /** Sends a message to the page if the window exists. */
  send(channel: string, payload: unknown): void;
  /** True when `sender` is our window's webContents showing our page. */
  isOurs(sender: WebContents, frameUrl: string | undefined): boolean;
  readonly window: BrowserWindow | undefined;
  destroy(): void;
}

/** The webPreferences every dashboard window gets; exported so a test can check nothing loosens them. */
export function secureWebPreferences(
  preloadPath: string,
): NonNullable<BrowserWindowConstructorOptions['webPreferences']> {
  return {
    preload: preloadPath,
    contextIsolation: true,
    nodeIntegration: false,
    sandbox: true,
    webSecurity: true,
    spellcheck: false,
  };
}

export function createMainWindow(opts: WindowOptions): MainWindow {
  const pageUrl = pathToFileURL(opts.indexPath).href;
  let win: BrowserWindow | undefined;

  const create = (): BrowserWindow => {
    const w = new opts.BrowserWindow({
      width: 1040,
      height: 760,
      minWidth: 720,
      minHeight: 520,
      show: false,
      title: 'Assistant Proxy',
      icon: opts.iconPath,
      autoHideMenuBar: true,
      webPreferences: secureWebPreferences(opts.preloadPath),
    });
    w.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    // The page uses no permission (the clipboard goes through IPC): every request (camera, microphone, geolocation,
    // notifications, clipboard reads, HID, serial, ...) and every check is refused, whatever a script in it asks.
    w.webContents.session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
    w.webContents.session.setPermissionCheckHandler(() => false);
    // The details object carries the target URL (the second `url` argument is deprecated since Electron 25).
    w.webContents.on('will-navigate', (event) => {
      if (event.url !== pageUrl) event.preventDefault();
    });
    w.on('close', (event) => {
      if (opts.hideOnClose()) {
        event.preventDefault();
        w.hide();
      }
    });
    w.on('closed', () => {
      if (win === w) win = undefined;
    });
    w.once('ready-to-show', () => w.show());
    void w.loadFile(opts.indexPath);
    return w;
  };

  return {
    show() {
      if (!win) {
        win = create();
        return;
      }
      if (win.isMinimized()) win.restore();
      win.show();
      win.focus();
    },
    send(channel, payload) {
      if (win && !win.isDestroyed()) win.webContents.send(channel, payload);
    },
    isOurs(sender, frameUrl) {
      return (
        win !== undefined &&
        !win.isDestroyed() &&
        sender === win.webContents &&
        frameUrl !== undefined &&
        frameUrl.split('#')[0] === pageUrl
      );
    },
    get window() {
      return win;
    },
    destroy() {
      if (win && !win.isDestroyed()) win.destroy();
      win = undefined;
    },
  };
}
