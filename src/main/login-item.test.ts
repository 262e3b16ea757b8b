import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autostartEntry, autostartPath, createLoginItem } from './login-item.js';

describe('open at login', () => {
  // Electron's fake keeps what the real API documents: on Windows an entry is found only when asked with the
  // same path and args it was set with; on macOS args and openAsHidden are not honoured.
  function fakeLoginItems(platform: 'darwin' | 'win32', wasOpenedAtLogin = false) {
    const calls: unknown[] = [];
    let entry: { path?: string; args?: string[] } | undefined;
    const app = {
      getLoginItemSettings: (o: { path?: string; args?: string[] } = {}) => ({
        openAtLogin:
          entry !== undefined &&
          (platform === 'darwin' ||
            (o.path === entry.path && JSON.stringify(o.args ?? []) === JSON.stringify(entry.args ?? []))),
        wasOpenedAtLogin,
      }),
      setLoginItemSettings: (s: { openAtLogin: boolean; path?: string; args?: string[] }) => {
        calls.push(s);
        entry = s.openAtLogin ? { path: s.path, args: s.args } : undefined;
      },
    };
    return { app, calls };
  }

  it('macOS: a login item without args, and a launch at login known from wasOpenedAtLogin', () => {
    const { app, calls } = fakeLoginItems('darwin');
    const item = createLoginItem({
      app,
      platform: 'darwin',
      execPath: '/Applications/Assistant Proxy.app/Contents/MacOS/Assistant Proxy',
    });
    expect(item.supported).toBe(true);
    item.set(true);
    expect(item.get()).toBe(true);
    expect(calls).toEqual([{ openAtLogin: true }]);
    expect(item.openedAtLogin([])).toBe(false);
    const atLogin = createLoginItem({ app: fakeLoginItems('darwin', true).app, platform: 'darwin', execPath: '/x' });
    expect(atLogin.openedAtLogin([])).toBe(true);
    item.set(false);
    expect(item.get()).toBe(false);
  });

  it('Windows: registered with path and --hidden, and read back with the same path and args (so it does not read as off)', () => {
    const { app, calls } = fakeLoginItems('win32');
    const execPath = 'C:\\Users\\u\\AppData\\Local\\Programs\\Assistant Proxy\\Assistant Proxy.exe';
    const item = createLoginItem({ app, platform: 'win32', execPath });
    item.set(true);
    expect(calls).toEqual([{ openAtLogin: true, path: execPath, args: ['--hidden'] }]);
    expect(item.get()).toBe(true);
    expect(app.getLoginItemSettings().openAtLogin).toBe(false); // what asking without path and args would have said
    expect(item.openedAtLogin(['Assistant Proxy.exe', '--hidden'])).toBe(true);
    expect(item.openedAtLogin(['Assistant Proxy.exe'])).toBe(false);
  });

  it('writes and removes an XDG autostart entry on Linux, using the AppImage path when there is one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autostart-'));
    try {
      const env = { XDG_CONFIG_HOME: dir, APPIMAGE: '/home/u/Apps/Assistant Proxy.AppImage' };
      const app = { getLoginItemSettings: () => ({ openAtLogin: false }), setLoginItemSettings: () => undefined };
      const item = createLoginItem({ app, platform: 'linux', execPath: '/tmp/.mount_x/assistant-proxy', env });
      expect(item.supported).toBe(true);
      expect(item.get()).toBe(false);
      item.set(true);
      expect(autostartPath(env)).toBe(join(dir, 'autostart', 'assistant-proxy.desktop'));
      expect(readFileSync(autostartPath(env), 'utf8')).toContain(
        'Exec="/home/u/Apps/Assistant Proxy.AppImage" --hidden',
      );
      expect(item.get()).toBe(true);
      expect(item.openedAtLogin(['/tmp/.mount_x/assistant-proxy', '--hidden'])).toBe(true);
      item.set(false);
      expect(existsSync(autostartPath(env))).toBe(false);
      expect(item.get()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('quotes Exec arguments per the desktop entry spec', () => {
    expect(autostartEntry('/usr/bin/electron', ['/home/u/my app', '--hidden'])).toBe(
      [
        '[Desktop Entry]',
        'Type=Application',
        'Name=Assistant Proxy',
        'Exec=/usr/bin/electron "/home/u/my app" --hidden',
        'X-GNOME-Autostart-enabled=true',
        'Terminal=false',
        '',
      ].join('\n'),
    );
  });
});
