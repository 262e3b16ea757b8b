// The tray menu and icon as pure functions of the controller's status (docs/principles.md "Split by runtime"), so every
// state the user can see is unit-tested without Electron; tray.ts only turns these items into Electron's Menu.

import type { ControlStatus } from '../proxy/control-api.js';
import { clientBaseUrl, sdkBaseUrls } from '../shared/endpoints.js';
import { modeLabels, modeNames, type ModeName } from '../shared/modes.js';

export type TrayIconState = 'running' | 'stopped' | 'attention';

export type TrayAction =
  | 'start'
  | 'stop'
  | 'copy-compat-url'
  | 'copy-native-url'
  | 'open-window'
  | 'diagnose'
  | 'toggle-open-at-login'
  | 'quit'
  | `toggle-mode:${ModeName}`;

export type TrayMenuItem =
  | { kind: 'label'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; label: string; action: TrayAction; enabled: boolean }
  | { kind: 'checkbox'; label: string; action: TrayAction; checked: boolean; enabled: boolean }
  | { kind: 'submenu'; label: string; items: TrayMenuItem[] };

export interface TrayPrefs {
  openAtLogin: boolean;
  /** False where the platform has no login-item support (some Linux desktops): the item is hidden. */
  openAtLoginSupported: boolean;
}

/** What the tray shows beyond the status: the quota line (quota-alerts.ts) and recent errors. */
export interface TrayExtras {
  /** "5h 18 % · week 23 % · resets 16:05"; absent until a window has been observed. */
  quotaLine?: string;
  /** Requests that failed in the last hour; the line shows only when it is not zero. */
  errorsLastHour?: number;
}

/** Running and healthy, stopped by the user, or something needs the user (server error, CLI missing, logged out). */
export function trayIconState(status: ControlStatus): TrayIconState {
  if (status.state === 'error' || status.attention.length > 0) return 'attention';
  if (status.state === 'running') return 'running';
  if (status.state === 'starting') return 'running';
  return 'stopped';
}

/** The first line of the menu and the tray tooltip. */
export function statusLine(status: ControlStatus): string {
  switch (status.state) {
    case 'running':
      return `Running on ${status.host.includes(':') ? `[${status.host}]` : status.host}:${status.port}`;
    case 'starting':
      return 'Starting…';
    case 'stopping':
      return 'Stopping…';
    case 'error':
      return status.error ?? 'The proxy could not start';
    default:
      return 'Stopped';
  }
}

/** The tray's tooltip: the status, then the limits line (with the pace and extra usage) when there is one. */
export function trayTooltip(status: ControlStatus, extras: TrayExtras = {}): string {
  return [`Assistant Proxy: ${statusLine(status)}`, extras.quotaLine].filter(Boolean).join('\n');
}

export function trayMenuModel(status: ControlStatus, prefs: TrayPrefs, extras: TrayExtras = {}): TrayMenuItem[] {
  const busy = status.state === 'starting' || status.state === 'stopping';
  const running = status.state === 'running';
  const items: TrayMenuItem[] = [{ kind: 'label', label: statusLine(status) }];
  // Attention items other than the server error (already the status line): CLI missing, logged out, expiring.
  for (const item of status.attention) if (item !== status.error) items.push({ kind: 'label', label: `⚠ ${item}` });
  if (extras.quotaLine) items.push({ kind: 'label', label: extras.quotaLine });
  const errors = extras.errorsLastHour ?? 0;
  if (errors > 0) items.push({ kind: 'label', label: `${errors} error${errors === 1 ? '' : 's'} in the last hour` });
  items.push(
    { kind: 'separator' },
    running || status.state === 'stopping'
      ? { kind: 'action', label: 'Stop proxy', action: 'stop', enabled: !busy }
      : { kind: 'action', label: 'Start proxy', action: 'start', enabled: !busy },
    { kind: 'separator' },
    {
      kind: 'action',
      label: `Copy OpenAI SDK base URL (${copyTextFor('copy-compat-url', status)})`,
      action: 'copy-compat-url',
      enabled: true,
    },
    {
      kind: 'action',
      label: `Copy native SDK base URL (${copyTextFor('copy-native-url', status)})`,
      action: 'copy-native-url',
      enabled: true,
    },
    { kind: 'separator' },
    { kind: 'action', label: 'Open window', action: 'open-window', enabled: true },
    { kind: 'action', label: 'Diagnose…', action: 'diagnose', enabled: true },
    {
      kind: 'submenu',
      label: 'Modes',
      items: modeNames.map((mode) => ({
        kind: 'checkbox' as const,
        label: modeLabels[mode],
        action: `toggle-mode:${mode}` as const,
        checked: status.modes.includes(mode),
        // The last mode on cannot be switched off from the tray: a proxy with no mode answers only 404s.
        enabled: !busy && !(status.modes.length === 1 && status.modes[0] === mode),
      })),
    },
  );
  if (prefs.openAtLoginSupported)
    items.push({
      kind: 'checkbox',
      label: 'Open at login',
      action: 'toggle-open-at-login',
      checked: prefs.openAtLogin,
      enabled: true,
    });
  items.push({ kind: 'separator' }, { kind: 'action', label: 'Quit Assistant Proxy', action: 'quit', enabled: true });
  return items;
}

/** The text a copy action puts on the clipboard: the tool-mode base URL each SDK takes as it is (the native SDK
 * adds /v1 itself), from the list the window shows too (src/shared/endpoints.ts). */
export function copyTextFor(action: 'copy-compat-url' | 'copy-native-url', status: ControlStatus): string {
  const [native, compat] = sdkBaseUrls(clientBaseUrl(status), ['tool']);
  return action === 'copy-compat-url' ? compat.url : native.url;
}

/** The modes after toggling one from the tray. */
export function toggledModes(modes: readonly ModeName[], mode: ModeName): ModeName[] {
  const next = modes.includes(mode) ? modes.filter((m) => m !== mode) : [...modes, mode];
  return modeNames.filter((m) => next.includes(m));
}
