// A small fake of the Electron API that startApp (src/main/start-app.ts) is given, recording what the app does.
// It keeps Electron's rules that matter to the app: windows, trays and notifications only after `ready`;
// `app.quit()` emits a preventable 'before-quit', then closes every window, then 'will-quit' and 'quit'; closing
// the last window outside a quit emits 'window-all-closed'; a second instance gets no lock. Electron itself
// cannot run here; test/main/electron-app.e2e.test.ts runs the real one where it can.

import { EventEmitter } from 'node:events';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { IpcMainInvokeEvent } from 'electron';
import type { AppElectron } from '../../src/main/app-host.js';
import type { StoreLike } from '../../src/main/settings.js';

export interface Recorded {
  type: string;
  [key: string]: any;
}

class PreventableEvent {
  defaultPrevented = false;
  preventDefault(): void {
    this.defaultPrevented = true;
  }
}

export interface MenuItem {
  label?: string;
  type?: string;
  enabled?: boolean;
  checked?: boolean;
  click?: () => void;
  submenu?: MenuItem[];
}

/** electron-store's surface over a JSON file; like conf, an unparseable file throws. */
export class JsonFileStore implements StoreLike {
  private data: Record<string, unknown>;
  constructor(readonly path: string) {
    this.data = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  }
  get store() {
    return { ...this.data };
  }
  set store(value: Record<string, unknown>) {
    writeFileSync(this.path, JSON.stringify(value));
    this.data = { ...value };
  }
}

export function fakeElectron(opts: {
  appPath: string;
  userData: string;
  singleInstance?: boolean;
  wasOpenedAtLogin?: boolean;
}) {
  const events: Recorded[] = [];
  const record = (type: string, fields: Record<string, unknown> = {}) => void events.push({ type, ...fields });
  let ready = false;
  let quitting = false;
  let quit = false;
  const paths: Record<string, string> = { userData: opts.userData, downloads: opts.userData };
  const windows = new Set<FakeWindow>();
  const handlers = new Map<string, (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown>();
  const loginItems: unknown[] = [];
  const needReady = (what: string) => {
    if (!ready) record('violation', { what: `${what} before ready` });
  };

  const app = Object.assign(new EventEmitter(), {
    whenReady: () =>
      new Promise<void>((resolve) =>
        setImmediate(() => {
          ready = true;
          resolve();
        }),
      ),
    getPath: (name: string) => paths[name] ?? opts.userData,
    setPath: (name: string, path: string) => void (paths[name] = path),
    getAppPath: () => opts.appPath,
    requestSingleInstanceLock: () => {
      record('single-instance-lock', { userData: paths.userData });
      return opts.singleInstance ?? true;
    },
    getLoginItemSettings: () => ({
      openAtLogin: loginItems.length > 0,
      wasOpenedAtLogin: opts.wasOpenedAtLogin ?? false,
    }),
    setLoginItemSettings: (s: { openAtLogin: boolean }) =>
      void (s.openAtLogin ? loginItems.push(s) : loginItems.splice(0)),
    quit: () => {
      if (quit) return;
      const event = new PreventableEvent();
      quitting = true;
      app.emit('before-quit', event);
      record('before-quit', { prevented: event.defaultPrevented });
      if (event.defaultPrevented) {
        quitting = false;
        return;
      }
      for (const w of [...windows]) w.close();
      quit = true;
      app.emit('will-quit', new PreventableEvent());
      app.emit('quit');
      record('quit');
    },
  });

  class FakeWindow extends EventEmitter {
    visible = false;
    destroyed = false;
    readonly webContents = {
      send: (channel: string, ...args: unknown[]) =>
        record('webcontents-send', { channel, args: JSON.parse(JSON.stringify(args)) }),
      setWindowOpenHandler: () => undefined,
      on: () => undefined,
      session: {
        setPermissionRequestHandler: (handler: unknown) =>
          record('permission-request-handler', { set: typeof handler === 'function' }),
        setPermissionCheckHandler: (handler: unknown) =>
          record('permission-check-handler', { set: typeof handler === 'function' }),
      },
    };
    constructor(readonly options: Record<string, any>) {
      super();
      needReady('BrowserWindow');
      windows.add(this);
      record('window-created', { options });
    }
    loadFile(file: string) {
      record('window-load', { file });
      setImmediate(() => this.emit('ready-to-show'));
      return Promise.resolve();
    }
    show() {
      this.visible = true;
      record('window-show');
    }
    hide() {
      this.visible = false;
    }
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
    isDestroyed() {
      return this.destroyed;
    }
    destroy() {
      this.destroyed = true;
      windows.delete(this);
    }
    /** The user closes the window (or a quit does). */
    close() {
      const event = new PreventableEvent();
      this.emit('close', event);
      if (event.defaultPrevented) return;
      this.destroy();
      this.emit('closed');
      if (windows.size === 0 && !quitting) {
        if (app.listenerCount('window-all-closed') > 0) app.emit('window-all-closed');
        else app.quit();
      }
    }
  }

  let trayMenu: MenuItem[] | undefined;
  class FakeTray {
    constructor(readonly image: { path: string }) {
      needReady('Tray');
      record('tray-created', { image });
    }
    setImage(image: { path: string }) {
      record('tray-image', { image });
    }
    setToolTip() {}
    setContextMenu(menu: MenuItem[]) {
      trayMenu = menu;
    }
    destroy() {}
  }

  class FakeNotification {
    static isSupported = () => true;
    constructor(readonly options: { title: string; body: string }) {
      needReady('Notification');
    }
    show() {
      record('notification', { ...this.options });
    }
  }

  const electron = {
    app,
    BrowserWindow: FakeWindow,
    Tray: FakeTray,
    Menu: { buildFromTemplate: (template: MenuItem[]) => template },
    nativeImage: { createFromPath: (path: string) => ({ path, empty: !existsSync(path) }) },
    Notification: FakeNotification,
    clipboard: { writeText: (text: string) => record('clipboard', { text }) },
    dialog: {
      showSaveDialog: async () => ({ canceled: true }),
      showOpenDialog: async () => ({ canceled: true, filePaths: [] }),
    },
    ipcMain: {
      handle: (channel: string, fn: (event: IpcMainInvokeEvent, ...args: unknown[]) => unknown) =>
        void handlers.set(channel, fn),
      removeHandler: (channel: string) => void handlers.delete(channel),
    },
    shell: { openPath: async (path: string) => (record('open-path', { path }), '') },
  } as unknown as AppElectron;

  return {
    electron,
    events,
    windows: () => [...windows],
    handled: () => [...handlers.keys()],
    get quit() {
      return quit;
    },
    /** The newest tray menu, as labels and items. */
    trayMenu: () => trayMenu,
    /** Clicks the tray menu item at this path of labels (prefixes match: "Copy OpenAI SDK base URL"). */
    click(path: string[]): void {
      let items = trayMenu ?? [];
      let item: MenuItem | undefined;
      for (const label of path) {
        item = items.find((i) => i.label?.startsWith(label));
        if (!item) throw new Error(`no tray item ${label} in ${items.map((i) => i.label).join(', ')}`);
        items = item.submenu ?? [];
      }
      item!.click!();
    },
    /** Calls an IPC handler the way the preload does: from our window's page, another webContents, or another page. */
    async invoke(
      channel: string,
      args: unknown[] = [],
      from: { sender?: 'window' | 'foreign'; frameUrl?: string } = {},
    ): Promise<unknown> {
      const fn = handlers.get(channel);
      if (!fn) throw new Error(`no handler for ${channel}`);
      const win = [...windows][0];
      const sender = from.sender === 'foreign' || !win ? { id: -1 } : win.webContents;
      const loaded = events.findLast((e) => e.type === 'window-load')?.file as string | undefined;
      const url = from.frameUrl ?? (loaded ? pathToFileURL(loaded).href : undefined);
      return fn({ sender, senderFrame: { url } } as unknown as IpcMainInvokeEvent, ...args);
    },
  };
}
