import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { createMainWindow, secureWebPreferences } from './window.js';

class FakeWebContents extends EventEmitter {
  sent: Array<[string, unknown]> = [];
  permissionRequest:
    | ((contents: unknown, permission: string, callback: (granted: boolean) => void, details: unknown) => void)
    | undefined;
  permissionCheck: ((contents: unknown, permission: string, origin: string, details: unknown) => boolean) | undefined;
  session = {
    setPermissionRequestHandler: (h: FakeWebContents['permissionRequest']) => (this.permissionRequest = h),
    setPermissionCheckHandler: (h: FakeWebContents['permissionCheck']) => (this.permissionCheck = h),
  };
  openHandler: (() => { action: string }) | undefined;
  setWindowOpenHandler(h: () => { action: string }) {
    this.openHandler = h;
  }
  send(channel: string, payload: unknown) {
    this.sent.push([channel, payload]);
  }
}

class FakeWindow extends EventEmitter {
  static made: FakeWindow[] = [];
  webContents = new FakeWebContents();
  visible = false;
  destroyed = false;
  loaded: string | undefined;
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeWindow.made.push(this);
  }
  loadFile(path: string) {
    this.loaded = path;
    return Promise.resolve();
  }
  show() {
    this.visible = true;
  }
  hide() {
    this.visible = false;
  }
  focus() {}
  isMinimized() {
    return false;
  }
  restore() {}
  isDestroyed() {
    return this.destroyed;
  }
  destroy() {
    this.destroyed = true;
  }
  /** What Electron does on a close request: emit 'close' and close unless prevented. */
  requestClose() {
    let prevented = false;
    this.emit('close', { preventDefault: () => (prevented = true) });
    if (!prevented) {
      this.destroyed = true;
      this.emit('closed');
    }
    return !prevented;
  }
}

function make(hide: () => boolean) {
  FakeWindow.made = [];
  const w = createMainWindow({
    BrowserWindow: FakeWindow as never,
    preloadPath: '/app/dist/main/preload.cjs',
    indexPath: '/app/dist/renderer/index.html',
    hideOnClose: hide,
  });
  return w;
}

describe('main window', () => {
  it('is locked down: isolated, no Node, sandboxed, no new windows, no navigation away', () => {
    const w = make(() => true);
    w.show();
    const win = FakeWindow.made[0];
    expect((win.options as { webPreferences: unknown }).webPreferences).toEqual(
      secureWebPreferences('/app/dist/main/preload.cjs'),
    );
    expect(secureWebPreferences('/p')).toMatchObject({ contextIsolation: true, nodeIntegration: false, sandbox: true });
    expect(win.webContents.openHandler?.()).toEqual({ action: 'deny' });
    let prevented = false;
    win.webContents.emit('will-navigate', { url: 'https://example.com/', preventDefault: () => (prevented = true) });
    expect(prevented).toBe(true);
    expect(win.loaded).toBe('/app/dist/renderer/index.html');
  });

  it('denies every permission request and check: the page uses none', () => {
    FakeWindow.made = [];
    const w = createMainWindow({
      BrowserWindow: FakeWindow as never,
      preloadPath: '/app/preload.cjs',
      indexPath: '/app/index.html',
      hideOnClose: () => true,
    });
    w.show();
    const contents = FakeWindow.made[0].webContents;
    expect(contents.permissionRequest).toBeTypeOf('function');
    expect(contents.permissionCheck).toBeTypeOf('function');
    for (const permission of [
      'media',
      'geolocation',
      'notifications',
      'clipboard-read',
      'clipboard-sanitized-write',
      'hid',
      'serial',
      'fullscreen',
      'openExternal',
    ]) {
      let granted: boolean | undefined;
      contents.permissionRequest!(contents, permission, (g) => (granted = g), {});
      expect(granted, permission).toBe(false);
      expect(contents.permissionCheck!(contents, permission, 'file://', {}), permission).toBe(false);
    }
  });

  it('closing hides it while a tray can bring it back; show() reuses it', () => {
    const w = make(() => true);
    w.show();
    const win = FakeWindow.made[0];
    win.emit('ready-to-show');
    expect(win.visible).toBe(true);
    expect(win.requestClose()).toBe(false);
    expect(win.visible).toBe(false);
    w.show();
    expect(FakeWindow.made).toHaveLength(1);
    expect(win.visible).toBe(true);
  });

  it('closing really closes when there is no tray host (or the app is quitting); show() makes a new one', () => {
    const w = make(() => false);
    w.show();
    expect(FakeWindow.made[0].requestClose()).toBe(true);
    expect(w.window).toBeUndefined();
    w.send('control-status', {});
    w.show();
    expect(FakeWindow.made).toHaveLength(2);
  });

  it('recognises only its own webContents showing its own page', () => {
    const w = make(() => true);
    w.show();
    const wc = FakeWindow.made[0].webContents as never;
    expect(w.isOurs(wc, 'file:///app/dist/renderer/index.html')).toBe(true);
    expect(w.isOurs(wc, 'file:///app/dist/renderer/index.html#settings')).toBe(true);
    expect(w.isOurs(wc, 'https://example.com/')).toBe(false);
    expect(w.isOurs(new FakeWebContents() as never, 'file:///app/dist/renderer/index.html')).toBe(false);
    expect(w.isOurs(wc, undefined)).toBe(false);
  });
});
