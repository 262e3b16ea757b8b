// The tray (tray.ts renders tray-model.ts's menu) and what each of its actions does. No tray host on a Linux
// desktop: no tray, and the window is the way in (docs/desktop.md).

import type { ControlStatus } from '../proxy/control-api.js';
import type { AppContext } from './app-context.js';
import { showPanelChannel, type ShowPanel } from './ipc.js';
import { setupTray as createAppTray } from './tray.js';
import { copyTextFor, toggledModes, type TrayAction } from './tray-model.js';

export async function setupTray(ctx: AppContext): Promise<void> {
  const { host, loginItem } = ctx;
  if (!(await host.hasTrayHost(ctx.env))) {
    ctx.log.info('no tray host found: the window is the way to reach the app, and closing it quits');
    return;
  }
  ctx.tray = createAppTray({
    electron: ctx.electron,
    assetsDir: ctx.assetsDir,
    platform: host.platform,
    status: () => ctx.controller!.status(),
    prefs: () => ({ openAtLogin: loginItem.get(), openAtLoginSupported: loginItem.supported }),
    extras: () => ctx.trayExtras,
    onAction: (action) => void onTrayAction(ctx, action),
  });
}

async function onTrayAction(ctx: AppContext, action: TrayAction): Promise<void> {
  const ctl = ctx.controller!;
  const status = ctl.status();
  switch (action) {
    case 'start':
      await ctl.start().catch((err: Error) => ctx.notify('Assistant Proxy could not start', err.message));
      break;
    case 'stop':
      await ctl.stop();
      break;
    case 'copy-compat-url':
    case 'copy-native-url':
      ctx.electron.clipboard.writeText(copyTextFor(action, status));
      break;
    case 'open-window':
      ctx.mainWindow!.show();
      break;
    case 'diagnose':
      ctx.mainWindow!.show();
      ctx.mainWindow!.send(showPanelChannel, { panel: 'diagnose', run: true } satisfies ShowPanel);
      break;
    case 'toggle-open-at-login':
      ctx.loginItem.set(!ctx.loginItem.get());
      break;
    case 'quit':
      ctx.electron.app.quit();
      return;
    default: {
      const mode = action.slice('toggle-mode:'.length) as ControlStatus['modes'][number];
      const result = await ctl.updateSettings({ modes: toggledModes(status.modes, mode) });
      if (!result.ok) ctx.notify('Modes not changed', result.message ?? 'The change was refused');
    }
  }
  ctx.tray?.refresh();
}
