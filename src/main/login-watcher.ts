// Watches the CLI's login: runs the controller's probe on an interval and reports transitions (logged out,
// token expiring soon, expired, CLI missing, fine again), so the main process can show a notification and the
// tray icon can change. Pure-ish: the clock and the probe come in, `check()` can be called directly by tests.
// docs/lessons.md "Desktop app habits": users want a visible token-expiry warning with time to log in again before it
// expires.

import { EventEmitter } from 'node:events';
import type { ControlStatus } from '../proxy/control-api.js';

type LoginState = 'unknown' | 'ok' | 'cli-missing' | 'logged-out' | 'expiring' | 'expired';

export interface LoginTransition {
  from: LoginState;
  to: LoginState;
  /** Notification title and body; absent for transitions not worth interrupting the user for. */
  notification?: { title: string; body: string };
}

export function loginStateOf(status: ControlStatus, now: number, expiringSoonMs: number): LoginState {
  if (status.state !== 'running') return 'unknown';
  if (status.cli.status === 'unhealthy') return 'cli-missing';
  if (status.auth.status === 'unauthenticated') return 'logged-out';
  // A token that renews by itself (a refresh token beside it) is not a login about to end.
  if (status.auth.loggedIn && status.auth.expires && !status.auth.renews) {
    const left = Date.parse(status.auth.expires) - now;
    if (Number.isFinite(left)) {
      if (left <= 0) return 'expired';
      if (left < expiringSoonMs) return 'expiring';
    }
  }
  return status.auth.status === 'healthy' ? 'ok' : 'unknown';
}

function describe(
  to: LoginState,
  from: LoginState,
  status: ControlStatus,
  now: number,
): LoginTransition['notification'] {
  switch (to) {
    case 'cli-missing':
      return {
        title: 'Assistant CLI not found',
        body: 'Tool mode needs the CLI: install it, or set its path in the Assistant Proxy window.',
      };
    case 'logged-out':
      return {
        title: 'Assistant CLI is logged out',
        body: 'Requests through the CLI will fail until you log in again with the CLI.',
      };
    case 'expired':
      return { title: 'CLI login expired', body: 'The CLI login token has expired: log in again with the CLI.' };
    case 'expiring': {
      const minutes = Math.max(1, Math.round((Date.parse(status.auth.expires ?? '') - now) / 60_000));
      const when = minutes >= 120 ? `${Math.round(minutes / 60)} hours` : `${minutes} minutes`;
      return {
        title: 'CLI login expires soon',
        body: `The CLI login token expires in about ${when}. Log in again with the CLI to avoid interruptions.`,
      };
    }
    case 'ok':
      return from === 'unknown'
        ? undefined
        : { title: 'Assistant CLI is ready', body: `Logged in${status.auth.user ? ` as ${status.auth.user}` : ''}.` };
    default:
      return undefined;
  }
}

interface LoginWatcherOptions {
  /** Runs the probe now and returns the status (controller.refreshProbe). */
  refresh(): Promise<ControlStatus>;
  intervalMs: number;
  expiringSoonMs?: number;
  now?: () => number;
}

export class LoginWatcher extends EventEmitter<{ transition: [LoginTransition]; error: [Error] }> {
  private last: LoginState = 'unknown';
  private timer: NodeJS.Timeout | undefined;
  private readonly now: () => number;
  private readonly expiringSoonMs: number;

  constructor(private readonly opts: LoginWatcherOptions) {
    super();
    this.now = opts.now ?? Date.now;
    this.expiringSoonMs = opts.expiringSoonMs ?? 24 * 3_600_000;
  }

  get state(): LoginState {
    return this.last;
  }

  /** Feeds a status seen elsewhere (a controller status event) without running the probe. */
  observe(status: ControlStatus): LoginTransition | undefined {
    const next = loginStateOf(status, this.now(), this.expiringSoonMs);
    // "unknown" (server stopped or restarting) keeps the last known state: a restart must not re-announce it.
    if (next === 'unknown' || next === this.last) return undefined;
    const transition: LoginTransition = {
      from: this.last,
      to: next,
      notification: describe(next, this.last, status, this.now()),
    };
    this.last = next;
    this.emit('transition', transition);
    return transition;
  }

  async check(): Promise<LoginTransition | undefined> {
    return this.observe(await this.opts.refresh());
  }

  start(): void {
    this.stop();
    this.timer = setInterval(() => {
      this.check().catch((err: Error) => {
        if (this.listenerCount('error') > 0) this.emit('error', err);
      });
    }, this.opts.intervalMs);
    this.timer.unref?.();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
