import { describe, expect, it } from 'vitest';

import { setupTray, toMenuTemplate, trayIconPath } from './tray.js';

import {
  copyTextFor,
  statusLine,
  toggledModes,
  trayIconState,
  trayMenuModel,
  trayTooltip,
  type TrayAction,
  type TrayExtras,
} from './tray-model.js';
import { statusFixture } from '../../test/main/status-fixture.js';
import { clientBaseUrl } from '../shared/endpoints.js';

const prefs = { openAtLogin: false, openAtLoginSupported: true };

describe('trayMenuModel', () => {
  it('running: status line, Stop, both base URLs, window, modes, open at login, quit', () => {
    expect(trayMenuModel(statusFixture(), prefs)).toEqual([
      { kind: 'label', label: 'Running on 127.0.0.1:8000' },
      { kind: 'separator' },
      { kind: 'action', label: 'Stop proxy', action: 'stop', enabled: true },
      { kind: 'separator' },
      {
        kind: 'action',
        label: 'Copy OpenAI SDK base URL (http://127.0.0.1:8000/compat/v1)',
        action: 'copy-compat-url',
        enabled: true,
      },
      {
        kind: 'action',
        label: 'Copy native SDK base URL (http://127.0.0.1:8000)',
        action: 'copy-native-url',
        enabled: true,
      },
      { kind: 'separator' },
      { kind: 'action', label: 'Open window', action: 'open-window', enabled: true },
      { kind: 'action', label: 'Diagnose…', action: 'diagnose', enabled: true },
      {
        kind: 'submenu',
        label: 'Modes',
        items: [
          { kind: 'checkbox', label: 'Tool (CLI)', action: 'toggle-mode:tool', checked: true, enabled: true },
          { kind: 'checkbox', label: 'Direct API', action: 'toggle-mode:direct', checked: true, enabled: true },
          { kind: 'checkbox', label: 'Response API', action: 'toggle-mode:respapi', checked: true, enabled: true },
        ],
      },
      { kind: 'checkbox', label: 'Open at login', action: 'toggle-open-at-login', checked: false, enabled: true },
      { kind: 'separator' },
      { kind: 'action', label: 'Quit Assistant Proxy', action: 'quit', enabled: true },
    ]);
  });

  it('the quota line and the errors of the last hour under the status, the errors only when there are any', () => {
    const items = trayMenuModel(statusFixture(), prefs, {
      quotaLine: '5h 18 % · week 23 % · resets 16:05',
      errorsLastHour: 3,
    });
    expect(items.slice(0, 4)).toEqual([
      { kind: 'label', label: 'Running on 127.0.0.1:8000' },
      { kind: 'label', label: '5h 18 % · week 23 % · resets 16:05' },
      { kind: 'label', label: '3 errors in the last hour' },
      { kind: 'separator' },
    ]);
    expect(trayMenuModel(statusFixture(), prefs, { errorsLastHour: 1 })[1]).toEqual({
      kind: 'label',
      label: '1 error in the last hour',
    });
    const quiet = trayMenuModel(statusFixture(), prefs, { errorsLastHour: 0 });
    expect(quiet.filter((i) => i.kind === 'label')).toEqual([{ kind: 'label', label: 'Running on 127.0.0.1:8000' }]);
  });

  it('stopped: "Stopped" and Start', () => {
    const items = trayMenuModel(statusFixture({ state: 'stopped' }), prefs);
    expect(items[0]).toEqual({ kind: 'label', label: 'Stopped' });
    expect(items[2]).toEqual({ kind: 'action', label: 'Start proxy', action: 'start', enabled: true });
  });

  it('error: the error is the status line, shown once, and Start is offered', () => {
    const error = 'Port 8000 already in use on 127.0.0.1.';
    const items = trayMenuModel(statusFixture({ state: 'error', error, attention: [error] }), prefs);
    expect(items[0]).toEqual({ kind: 'label', label: error });
    expect(items.filter((i) => i.kind === 'label')).toHaveLength(1);
    expect(items[2]).toMatchObject({ action: 'start', enabled: true });
  });

  it('attention items follow the status line', () => {
    const items = trayMenuModel(
      statusFixture({ attention: ['Assistant CLI is logged out: log in again with the CLI'] }),
      prefs,
    );
    expect(items[1]).toEqual({ kind: 'label', label: '⚠ Assistant CLI is logged out: log in again with the CLI' });
  });

  it('while starting or stopping, Start/Stop and modes are disabled', () => {
    const items = trayMenuModel(statusFixture({ state: 'starting' }), prefs);
    expect(items[0]).toEqual({ kind: 'label', label: 'Starting…' });
    expect(items[2]).toMatchObject({ action: 'start', enabled: false });
    const modes = items.find((i) => i.kind === 'submenu');
    expect(modes?.kind === 'submenu' && modes.items.every((m) => m.kind === 'checkbox' && !m.enabled)).toBe(true);
  });

  it('the last mode on cannot be switched off', () => {
    const modes = trayMenuModel(statusFixture({ modes: ['direct'] }), prefs).find((i) => i.kind === 'submenu');
    expect(
      modes?.kind === 'submenu' && modes.items.map((m) => m.kind === 'checkbox' && [m.checked, m.enabled]),
    ).toEqual([
      [false, true],
      [true, false],
      [false, true],
    ]);
  });

  it('hides Open at login where unsupported and shows its state where supported', () => {
    expect(
      trayMenuModel(statusFixture(), { openAtLogin: true, openAtLoginSupported: false }).some(
        (i) => i.kind === 'checkbox' && i.action === 'toggle-open-at-login',
      ),
    ).toBe(false);
    expect(trayMenuModel(statusFixture(), { openAtLogin: true, openAtLoginSupported: true })).toContainEqual({
      kind: 'checkbox',
      label: 'Open at login',
      action: 'toggle-open-at-login',
      checked: true,
      enabled: true,
    });
  });

  it('a LAN bind is copied as a loopback URL; IPv6 hosts are bracketed', () => {
    expect(clientBaseUrl({ host: '0.0.0.0', port: 9000 })).toBe('http://127.0.0.1:9000');
    expect(clientBaseUrl({ host: '::1', port: 9000 })).toBe('http://[::1]:9000');
    expect(statusLine(statusFixture({ host: '::1' }))).toBe('Running on [::1]:8000');
    expect(copyTextFor('copy-compat-url', statusFixture({ host: '0.0.0.0', port: 8123 }))).toBe(
      'http://127.0.0.1:8123/compat/v1',
    );
    // The native SDK adds /v1 itself: a copied .../v1 made it call /v1/v1/messages.
    expect(copyTextFor('copy-native-url', statusFixture())).toBe('http://127.0.0.1:8000');
  });
});

describe('trayIconState', () => {
  it('running, stopped, and attention for an error or any attention item', () => {
    expect(trayIconState(statusFixture())).toBe('running');
    expect(trayIconState(statusFixture({ state: 'stopped' }))).toBe('stopped');
    expect(trayIconState(statusFixture({ state: 'error', error: 'Port 8000 already in use' }))).toBe('attention');
    expect(trayIconState(statusFixture({ attention: ['Assistant CLI not found'] }))).toBe('attention');
    expect(trayIconState(statusFixture({ state: 'stopped', attention: ['Assistant CLI not found'] }))).toBe(
      'attention',
    );
  });
});

describe('toggledModes', () => {
  it('adds or removes one mode and keeps the canonical order', () => {
    expect(toggledModes(['tool', 'direct', 'respapi'], 'direct')).toEqual(['tool', 'respapi']);
    expect(toggledModes(['respapi'], 'tool')).toEqual(['tool', 'respapi']);
  });
});

describe('tray adapter', () => {
  it('turns menu items into Electron templates whose clicks report the action', () => {
    const clicked: TrayAction[] = [];
    const template = toMenuTemplate(trayMenuModel(statusFixture(), prefs), (a) => clicked.push(a));
    expect(template[0]).toEqual({ label: 'Running on 127.0.0.1:8000', enabled: false });
    const stop = template[2] as { click: () => void };
    stop.click();
    const modes = template.find((t) => t.label === 'Modes') as {
      submenu: Array<{ type: string; checked: boolean; click: () => void }>;
    };
    expect(modes.submenu[1]).toMatchObject({ type: 'checkbox', checked: true });
    modes.submenu[1].click();
    expect(clicked).toEqual(['stop', 'toggle-mode:direct']);
  });

  it('picks template icons on macOS and coloured ones elsewhere', () => {
    expect(trayIconPath('/app/assets', 'attention', 'darwin')).toBe('/app/assets/tray/attentionTemplate.png');
    expect(trayIconPath('/app/assets', 'running', 'linux')).toBe('/app/assets/tray/linux/running.png');
    expect(trayIconPath('/app/assets', 'running', 'win32')).toBe('/app/assets/tray/running.png');
  });

  it('swaps the icon and rebuilds the menu when the status changes', () => {
    let status = statusFixture();
    let extras: TrayExtras = {};
    const images: string[] = [];
    const menus: unknown[][] = [];
    const tooltips: string[] = [];
    class FakeTray {
      constructor(image: { path: string }) {
        images.push(image.path);
      }
      setImage(image: { path: string }) {
        images.push(image.path);
      }
      setToolTip(t: string) {
        tooltips.push(t);
      }
      setContextMenu(menu: { template: unknown[] }) {
        menus.push(menu.template);
      }
      destroy() {}
    }
    const tray = setupTray({
      electron: {
        Tray: FakeTray as never,
        Menu: { buildFromTemplate: (template) => ({ template }) as never },
        nativeImage: { createFromPath: (path) => ({ path }) as never },
      },
      assetsDir: '/a',
      platform: 'linux',
      status: () => status,
      prefs: () => prefs,
      extras: () => extras,
      onAction: () => undefined,
    });
    extras = { quotaLine: '5h 18 % · week 23 % · resets 16:05', errorsLastHour: 2 };
    tray.refresh();
    expect((menus.at(-1) as Array<{ label?: string }>).slice(1, 3).map((i) => i.label)).toEqual([
      '5h 18 % · week 23 % · resets 16:05',
      '2 errors in the last hour',
    ]);
    extras = {};
    status = statusFixture({ state: 'stopped' });
    tray.refresh();
    tray.refresh();
    status = statusFixture({ state: 'error', error: 'Port 8000 already in use' });
    tray.refresh();
    expect(images).toEqual([
      '/a/tray/linux/running.png',
      '/a/tray/linux/running.png',
      '/a/tray/linux/stopped.png',
      '/a/tray/linux/attention.png',
    ]);
    expect(tooltips.at(-1)).toBe('Assistant Proxy: Port 8000 already in use');
    expect(menus).toHaveLength(5);
  });
});

describe('tray tooltip', () => {
  it('is the status, then the limits line with its pace when there is one', () => {
    const status = statusFixture({ host: '127.0.0.1' });
    expect(trayTooltip(status)).toBe(`Assistant Proxy: ${statusLine(status)}`);
    expect(trayTooltip(status, { quotaLine: '5h 60 % (limit ~13:20 at this pace) · resets 15:00' })).toBe(
      `Assistant Proxy: ${statusLine(status)}\n5h 60 % (limit ~13:20 at this pace) · resets 15:00`,
    );
  });
});
