// The app's two background watches: the CLI's login (login-watcher.ts: a notice when it logs out or its token is
// about to expire) and the usage behind the tray's quota line and error count (quota-alerts.ts: notices at 80 % and
// 95 % of a window and on a rejection). Each stops on will-quit.

import type { ControlStatus } from '../proxy/control-api.js';
import { isProbeRoute } from '../proxy/route-table.js';
import type { AppContext } from './app-context.js';
import { LoginWatcher } from './login-watcher.js';
import { errorsInLastHour, quotaAlerts, quotaLine, type AlertState } from './quota-alerts.js';

const LOGIN_CHECK_MS = 5 * 60_000;
/** How often the tray's quota line and error count (and the quota notifications) are brought up to date. */
const USAGE_WATCH_MS = 30_000;

export function setupLoginWatch(ctx: AppContext): void {
  const ctl = ctx.controller!;
  const watcher = new LoginWatcher({ refresh: () => ctl.refreshProbe(), intervalMs: LOGIN_CHECK_MS });
  watcher.on('transition', (t) => {
    if (t.notification) ctx.notify(t.notification.title, t.notification.body);
    ctx.tray?.refresh();
  });
  watcher.on('error', (err) => ctx.log.warn({ err: err.message }, 'login check failed'));
  ctl.on('status', (status: ControlStatus) => watcher.observe(status));
  watcher.observe(ctl.status());
  watcher.start();
  ctx.electron.app.on('will-quit', () => watcher.stop());
}

/** Keeps the tray's quota line and error count current, and notifies at 80 % / 95 % and on a quota rejection. */
export function setupUsageWatch(ctx: AppContext): void {
  const ctl = ctx.controller!;
  const { usage } = ctx;
  let alerts: AlertState = {};
  const tick = async () => {
    const now = Date.now();
    const windows = usage ? await usage.quotaWindows() : [];
    const errors = usage
      ? (await usage.summary(now - 3_600_000, now, 'mode')).total.errors
      : errorsInLastHour(
          ctl
            .recentRequests()
            .filter((r) => !isProbeRoute(r.route))
            .map((r) => ({ startedAt: Date.parse(r.time), failed: r.status >= 400 || r.errorType !== undefined })),
          now,
        );
    ctx.trayExtras = { quotaLine: quotaLine(windows, now), errorsLastHour: errors };
    const due = quotaAlerts(alerts, windows);
    alerts = due.state;
    for (const n of due.notices) ctx.notify(n.title, n.body);
    ctx.tray?.refresh();
  };
  const timer = setInterval(
    () => void tick().catch((err: Error) => ctx.log.warn({ err: err.message }, 'usage watch failed')),
    USAGE_WATCH_MS,
  );
  ctx.electron.app.on('will-quit', () => clearInterval(timer));
  void tick().catch(() => undefined);
}
