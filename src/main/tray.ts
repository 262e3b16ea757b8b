// The tray: Electron's Tray + Menu rebuilt from trayMenuModel(status) on every status change. Electron is passed
// in (menubar style), so tests drive this with small fakes.

import { join } from 'node:path';
import type { MenuItemConstructorOptions, NativeImage, Tray } from 'electron';
import type { ControlStatus } from '../proxy/control-api.js';
import {
  trayIconState,
  trayMenuModel,
  trayTooltip,
  type TrayAction,
  type TrayExtras,
  type TrayIconState,
  type TrayMenuItem,
  type TrayPrefs,
} from './tray-model.js';

export interface TrayElectron {
  Tray: new (image: NativeImage) => Tray;
  Menu: { buildFromTemplate(template: MenuItemConstructorOptions[]): Electron.Menu };
  nativeImage: { createFromPath(path: string): NativeImage };
}

interface TrayOptions {
  electron: TrayElectron;
  assetsDir: string;
  platform: NodeJS.Platform;
  status: () => ControlStatus;
  prefs: () => TrayPrefs;
  /** The quota line and recent errors (index.ts refreshes them from the usage ledger). */
  extras?: () => TrayExtras;
  onAction: (action: TrayAction) => void;
}

/** macOS draws template images (black + alpha) in the menu bar's own colour; elsewhere the coloured icons, at
 * 24 px on Linux where tray hosts draw 22-24 px and 16 px on Windows (docs/desktop.md "Platform details, and how each
 * is known"). */
export function trayIconPath(assetsDir: string, state: TrayIconState, platform: NodeJS.Platform): string {
  if (platform === 'darwin') return join(assetsDir, 'tray', `${state}Template.png`);
  if (platform === 'linux') return join(assetsDir, 'tray', 'linux', `${state}.png`);
  return join(assetsDir, 'tray', `${state}.png`);
}

export function toMenuTemplate(
  items: TrayMenuItem[],
  onAction: (action: TrayAction) => void,
): MenuItemConstructorOptions[] {
  return items.map((item): MenuItemConstructorOptions => {
    switch (item.kind) {
      case 'label':
        return { label: item.label, enabled: false };
      case 'separator':
        return { type: 'separator' };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => onAction(item.action) };
      case 'checkbox':
        return {
          label: item.label,
          type: 'checkbox',
          checked: item.checked,
          enabled: item.enabled,
          click: () => onAction(item.action),
        };
      case 'submenu':
        return { label: item.label, submenu: toMenuTemplate(item.items, onAction) };
    }
  });
}

export interface AppTray {
  refresh(): void;
  destroy(): void;
  readonly tray: Tray;
}

export function setupTray(opts: TrayOptions): AppTray {
  const { electron, assetsDir, platform } = opts;
  let shownState: TrayIconState | undefined;
  const tray = new electron.Tray(
    electron.nativeImage.createFromPath(trayIconPath(assetsDir, trayIconState(opts.status()), platform)),
  );
  const refresh = () => {
    const status = opts.status();
    const state = trayIconState(status);
    if (state !== shownState) {
      tray.setImage(electron.nativeImage.createFromPath(trayIconPath(assetsDir, state, platform)));
      shownState = state;
    }
    tray.setToolTip(trayTooltip(status, opts.extras?.()));
    tray.setContextMenu(
      electron.Menu.buildFromTemplate(
        toMenuTemplate(trayMenuModel(status, opts.prefs(), opts.extras?.()), opts.onAction),
      ),
    );
  };
  refresh();
  return {
    tray,
    refresh,
    destroy: () => tray.destroy(),
  };
}
