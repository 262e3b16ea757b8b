import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autostartEntry, autostartPath, createLoginItem } from '../../src/main/login-item.js';

describe('open at login', () => {
  it('uses Electron login items on macOS and Windows, starting hidden', () => {
    const calls: unknown[] = [];
    let on = false;
    const app = {
      getLoginItemSettings: () => ({ openAtLogin: on }),
      setLoginItemSettings: (s: { openAtLogin: boolean }) => {
        calls.push(s);
        on = s.openAtLogin;
      },
    };
    const item = createLoginItem({ app, platform: 'darwin', execPath: '/Applications/Assistant Proxy.app/Contents/MacOS/Assistant Proxy' });
    expect(item.supported).toBe(true);
    item.set(true);
    expect(item.get()).toBe(true);
    expect(calls).toEqual([{ openAtLogin: true, openAsHidden: true, args: ['--hidden'] }]);
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
      expect(readFileSync(autostartPath(env), 'utf8')).toContain('Exec="/home/u/Apps/Assistant Proxy.AppImage" --hidden');
      expect(item.get()).toBe(true);
      item.set(false);
      expect(existsSync(autostartPath(env))).toBe(false);
      expect(item.get()).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('quotes Exec arguments per the desktop entry spec', () => {
    expect(autostartEntry('/usr/bin/electron', ['/home/u/my app', '--hidden'])).toBe(
      ['[Desktop Entry]', 'Type=Application', 'Name=Assistant Proxy', 'Exec=/usr/bin/electron "/home/u/my app" --hidden', 'X-GNOME-Autostart-enabled=true', 'Terminal=false', ''].join('\n'),
    );
  });
});
