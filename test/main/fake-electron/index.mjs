// A fake of the `electron` module for test/main/main-process.smoke.test.ts: just enough of Electron's main-process
// API for dist/main/index.js (and electron-store, which imports `app`, `ipcMain` and `shell` from it) to run under
// plain Node. The electron specifier is routed here by hooks.mjs (registered by register.mjs with --import).
//
// It follows Electron's rules where they matter to the app: windows, trays and notifications before `ready` are
// reported as violations; `app.quit()` emits a preventable 'before-quit', then closes every window (a prevented
// 'close' cancels the quit), then 'will-quit' and 'quit', then exits 0; closing the last window outside a quit emits
// 'window-all-closed' (and quits when nobody listens); the process stays alive until it quits, as Electron does.
//
// Everything the app does with Electron is reported to the parent over the Node IPC channel as `{type, ...}`
// messages; the parent drives the app with `{cmd, id, ...}` messages (invoke an IPC handler as the window or as a
// foreign sender, click a tray menu item, close the window, quit) and gets `{type: 'reply', id, ok, value|error}`.

import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { clearInterval, setImmediate, setInterval } from 'node:timers';
import { pathToFileURL } from 'node:url';

const send = (message) => {
  if (process.send && process.connected) process.send(message);
};
const violation = (what) => send({ type: 'violation', what });
const plain = (value) => JSON.parse(JSON.stringify(value ?? null));

// Electron's main process says so; electron-store reads it to tell main from renderer.
process.type = 'browser';

// Electron keeps its process alive until it quits, whatever the event loop holds.
const keepAlive = setInterval(() => undefined, 1 << 30);

function exitNow(code) {
  clearInterval(keepAlive);
  // Let the last report reach the parent before the process goes.
  if (process.send && process.connected) process.send({ type: 'exit', code }, () => process.exit(code));
  else process.exit(code);
}

class PreventableEvent {
  defaultPrevented = false;
  preventDefault() {
    this.defaultPrevented = true;
  }
}

/** The directory holding the package.json of the script being run: what `electron .` reports as the app path. */
function findAppPath() {
  let dir = dirname(resolve(process.argv[1] ?? '.'));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) return process.cwd();
    dir = up;
  }
  return dir;
}

// ---- app -------------------------------------------------------------------------------------------------------
let ready = false;
let quitting = false;
let resolveReady;
const readyPromise = new Promise((r) => (resolveReady = r));
const appPath = findAppPath();
const paths = new Map([
  ['home', homedir()],
  ['appData', process.env.XDG_CONFIG_HOME || join(homedir(), '.config')],
  ['temp', process.env.TMPDIR || '/tmp'],
]);
paths.set('userData', join(paths.get('appData'), 'assistant-proxy'));

class App extends EventEmitter {
  name = 'assistant-proxy';
  isPackaged = false;
  commandLine = { appendSwitch: () => undefined, hasSwitch: () => false, getSwitchValue: () => '' };
  whenReady() {
    return readyPromise;
  }
  isReady() {
    return ready;
  }
  getAppPath() {
    return appPath;
  }
  getName() {
    return this.name;
  }
  getVersion() {
    return '0.0.0-fake';
  }
  getPath(name) {
    if (!paths.has(name)) throw new Error(`Failed to get '${name}' path`);
    return paths.get(name);
  }
  setPath(name, value) {
    // Electron reads userData at start-up; changing it after `ready` leaves part of the app on the old directory.
    if (name === 'userData' && ready) violation('app.setPath(userData) after ready');
    paths.set(name, value);
    send({ type: 'set-path', name, path: value });
  }
  requestSingleInstanceLock() {
    // Electron keeps the lock in userData, so which directory is current at this moment decides which instances
    // exclude each other.
    send({ type: 'single-instance-lock', userData: paths.get('userData') });
    return process.env.FAKE_ELECTRON_SINGLE_INSTANCE_LOCK !== '0';
  }
  getLoginItemSettings() {
    return { openAtLogin: false };
  }
  setLoginItemSettings(settings) {
    send({ type: 'login-item', settings: plain(settings) });
  }
  setAppUserModelId() {}
  focus() {}
  quit() {
    if (quitting) return;
    const event = new PreventableEvent();
    this.emit('before-quit', event);
    send({ type: 'before-quit', prevented: event.defaultPrevented });
    if (event.defaultPrevented) return;
    quitting = true;
    setImmediate(() => {
      for (const win of BrowserWindow.getAllWindows()) {
        win.close();
        if (!win.isDestroyed()) {
          // A window that refuses to close cancels the quit, as in Electron.
          quitting = false;
          send({ type: 'quit-cancelled', by: 'window-close' });
          return;
        }
      }
      const willQuit = new PreventableEvent();
      this.emit('will-quit', willQuit);
      if (willQuit.defaultPrevented) {
        quitting = false;
        send({ type: 'quit-cancelled', by: 'will-quit' });
        return;
      }
      this.emit('quit', new PreventableEvent(), 0);
      send({ type: 'quit' });
      exitNow(0);
    });
  }
  exit(code = 0) {
    exitNow(code);
  }
}
export const app = new App();

// Electron emits `ready` once the main script has run.
setImmediate(() => {
  ready = true;
  send({ type: 'ready' });
  app.emit('ready', new PreventableEvent(), {});
  resolveReady();
});

// ---- windows ---------------------------------------------------------------------------------------------------
let nextId = 1;
const windows = new Set();

class WebContents extends EventEmitter {
  constructor(url = '') {
    super();
    this.id = nextId++;
    this.url = url;
    this.destroyed = false;
  }
  getURL() {
    return this.url;
  }
  isDestroyed() {
    return this.destroyed;
  }
  setWindowOpenHandler(handler) {
    this.windowOpenHandler = handler;
  }
  send(channel, ...args) {
    send({ type: 'webcontents-send', id: this.id, channel, args: plain(args) });
  }
}

export class BrowserWindow extends EventEmitter {
  static getAllWindows() {
    return [...windows];
  }
  static getFocusedWindow() {
    return [...windows][0] ?? null;
  }
  constructor(options = {}) {
    super();
    if (!ready) violation('new BrowserWindow before ready');
    this.id = nextId++;
    this.options = options;
    this.webContents = new WebContents();
    this.visible = false;
    this.destroyed = false;
    windows.add(this);
    send({ type: 'window-created', id: this.id, options: plain(options) });
  }
  async loadFile(file) {
    this.webContents.url = pathToFileURL(file).href;
    send({ type: 'window-load', id: this.id, file, url: this.webContents.url, exists: existsSync(file) });
    setImmediate(() => {
      if (!this.destroyed) this.emit('ready-to-show');
    });
  }
  async loadURL(url) {
    this.webContents.url = url;
    send({ type: 'window-load', id: this.id, url });
  }
  show() {
    this.visible = true;
    send({ type: 'window-show', id: this.id });
  }
  hide() {
    this.visible = false;
    send({ type: 'window-hide', id: this.id });
  }
  focus() {}
  restore() {}
  isMinimized() {
    return false;
  }
  isVisible() {
    return this.visible;
  }
  isDestroyed() {
    return this.destroyed;
  }
  close() {
    if (this.destroyed) return;
    const event = new PreventableEvent();
    this.emit('close', event);
    if (event.defaultPrevented) return;
    this.destroy();
  }
  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.visible = false;
    this.webContents.destroyed = true;
    windows.delete(this);
    send({ type: 'window-closed', id: this.id });
    this.emit('closed');
    if (windows.size === 0 && !quitting) {
      if (app.listenerCount('window-all-closed') > 0) app.emit('window-all-closed');
      else app.quit();
    }
  }
}

// ---- tray, menus, images ---------------------------------------------------------------------------------------
export const nativeImage = {
  createFromPath(path) {
    // Electron answers a missing file with an empty image (an invisible tray icon), not an error.
    const empty = !existsSync(path);
    return { path, isEmpty: () => empty, toJSON: () => ({ path, empty }) };
  },
  createEmpty() {
    return { path: '', isEmpty: () => true, toJSON: () => ({ path: '', empty: true }) };
  },
};

export class Menu {
  static buildFromTemplate(template) {
    return new Menu(template);
  }
  static setApplicationMenu(menu) {
    send({ type: 'application-menu', menu: menu ? serializeTemplate(menu.items) : null });
  }
  constructor(template = []) {
    this.items = template;
  }
}

function serializeTemplate(items) {
  return items.map((item) => ({
    label: item.label,
    type: item.type ?? (item.submenu ? 'submenu' : 'normal'),
    enabled: item.enabled ?? true,
    checked: item.checked,
    clickable: typeof item.click === 'function',
    submenu: item.submenu ? serializeTemplate(item.submenu instanceof Menu ? item.submenu.items : item.submenu) : undefined,
  }));
}

const trays = new Set();

export class Tray extends EventEmitter {
  constructor(image) {
    super();
    if (!ready) violation('new Tray before ready');
    this.destroyed = false;
    trays.add(this);
    send({ type: 'tray-created', image: plain(image) });
  }
  setImage(image) {
    send({ type: 'tray-image', image: plain(image) });
  }
  setToolTip(text) {
    send({ type: 'tray-tooltip', text });
  }
  setContextMenu(menu) {
    this.menu = menu;
    send({ type: 'tray-menu', menu: menu ? serializeTemplate(menu.items) : null });
  }
  isDestroyed() {
    return this.destroyed;
  }
  destroy() {
    this.destroyed = true;
    trays.delete(this);
    send({ type: 'tray-destroyed' });
  }
}

// ---- the rest of the main-process API the app uses ----------------------------------------------------------------
export class Notification extends EventEmitter {
  static isSupported() {
    return true;
  }
  constructor(options = {}) {
    super();
    this.options = options;
  }
  show() {
    if (!ready) violation('Notification shown before ready');
    send({ type: 'notification', title: this.options.title, body: this.options.body });
  }
}

let clipboardText = '';
export const clipboard = {
  writeText(text) {
    clipboardText = String(text);
    send({ type: 'clipboard', text: clipboardText });
  },
  readText: () => clipboardText,
};

export const dialog = {
  async showOpenDialog() {
    return { canceled: true, filePaths: [] };
  },
  async showMessageBox(...args) {
    send({ type: 'message-box', options: plain(args.at(-1)) });
    return { response: 0, checkboxChecked: false };
  },
  showErrorBox(title, content) {
    send({ type: 'error-box', title, content });
  },
};

export const shell = {
  async openPath(path) {
    send({ type: 'open-path', path });
    return '';
  },
  async openExternal(url) {
    send({ type: 'open-external', url });
  },
};

const handlers = new Map();
class IpcMain extends EventEmitter {
  handle(channel, listener) {
    // Electron refuses a second handler on one channel.
    if (handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`);
    handlers.set(channel, listener);
    send({ type: 'ipc-handle', channel });
  }
  handleOnce(channel, listener) {
    this.handle(channel, async (...args) => {
      handlers.delete(channel);
      return listener(...args);
    });
  }
  removeHandler(channel) {
    handlers.delete(channel);
    send({ type: 'ipc-remove', channel });
  }
}
export const ipcMain = new IpcMain();

// ---- commands from the test ------------------------------------------------------------------------------------
const foreignContents = new WebContents('https://elsewhere.example/');

function findMenuItem(items, path) {
  const [head, ...rest] = path;
  const item = items.find((i) => typeof i.label === 'string' && i.label.startsWith(head));
  if (!item) throw new Error(`no tray menu item starting with ${JSON.stringify(head)}`);
  if (rest.length === 0) return item;
  const sub = item.submenu instanceof Menu ? item.submenu.items : item.submenu;
  if (!sub) throw new Error(`tray menu item ${JSON.stringify(head)} has no submenu`);
  return findMenuItem(sub, rest);
}

const commands = {
  async invoke({ channel, args = [], sender = 'window', frameUrl }) {
    const handler = handlers.get(channel);
    if (!handler) throw new Error(`No handler registered for '${channel}'`);
    const contents = sender === 'window' ? BrowserWindow.getAllWindows()[0]?.webContents : foreignContents;
    if (!contents) throw new Error('there is no window to send from');
    return handler({ sender: contents, senderFrame: { url: frameUrl ?? contents.getURL() }, processId: 1, frameId: 1 }, ...args);
  },
  async click({ path }) {
    const tray = [...trays].at(-1);
    if (!tray?.menu) throw new Error('there is no tray menu');
    const item = findMenuItem(tray.menu.items, path);
    if (item.enabled === false) throw new Error(`tray menu item ${JSON.stringify(item.label)} is disabled`);
    if (item.type === 'checkbox') item.checked = !item.checked;
    item.click?.(item, BrowserWindow.getAllWindows()[0], {});
    return item.label;
  },
  async closeWindow() {
    const win = BrowserWindow.getAllWindows()[0];
    if (!win) throw new Error('there is no window');
    win.close();
    return { destroyed: win.isDestroyed(), visible: win.isVisible() };
  },
  async quit() {
    app.quit();
  },
};

process.on('message', (message) => {
  if (!message || typeof message.cmd !== 'string') return;
  const { cmd, id } = message;
  const run = commands[cmd];
  Promise.resolve()
    .then(() => {
      if (!run) throw new Error(`unknown command ${cmd}`);
      return run(message);
    })
    .then(
      (value) => send({ type: 'reply', id, ok: true, value: plain(value) }),
      (err) => send({ type: 'reply', id, ok: false, error: String(err?.message ?? err) }),
    );
});

export const contextBridge = {
  exposeInMainWorld() {
    throw new Error('contextBridge is a renderer API');
  },
};
export const ipcRenderer = undefined;

export default { app, BrowserWindow, Menu, Notification, Tray, clipboard, contextBridge, dialog, ipcMain, ipcRenderer, nativeImage, shell };
