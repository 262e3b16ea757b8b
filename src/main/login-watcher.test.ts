import { describe, expect, it } from 'vitest';
import { LoginWatcher, loginStateOf, type LoginTransition } from './login-watcher.js';
import type { ControlStatus } from '../proxy/control-api.js';
import { statusFixture } from '../../test/main/status-fixture.js';

const now = Date.parse('2025-06-01T12:00:00Z');
const hour = 3_600_000;
const loggedIn = (expiresInMs: number) =>
  statusFixture({
    auth: {
      status: 'healthy',
      loggedIn: true,
      user: 'dev@example.com',
      expires: new Date(now + expiresInMs).toISOString(),
    },
  });
const loggedOut = statusFixture({ auth: { status: 'unauthenticated', loggedIn: false } });
const cliMissing = statusFixture({
  cli: { status: 'unhealthy', searchedPaths: ['/usr/bin/x'] },
  auth: { status: 'unknown', loggedIn: false },
});
const stopped = statusFixture({
  state: 'stopped',
  cli: { status: 'unknown', searchedPaths: [] },
  auth: { status: 'unknown', loggedIn: false },
});

describe('loginStateOf', () => {
  it('maps the probe result to one state', () => {
    expect(loginStateOf(loggedIn(48 * hour), now, 24 * hour)).toBe('ok');
    expect(loginStateOf(loggedIn(2 * hour), now, 24 * hour)).toBe('expiring');
    expect(loginStateOf(loggedIn(-1), now, 24 * hour)).toBe('expired');
    expect(loginStateOf(loggedOut, now, 24 * hour)).toBe('logged-out');
    expect(loginStateOf(cliMissing, now, 24 * hour)).toBe('cli-missing');
    expect(loginStateOf(stopped, now, 24 * hour)).toBe('unknown');
    expect(loginStateOf(statusFixture({ auth: { status: 'healthy', loggedIn: true } }), now, 24 * hour)).toBe('ok');
    // An access token a refresh token renews is fine whatever its end: the CLI renews it.
    const renewing = (ms: number) =>
      statusFixture({
        auth: { status: 'healthy', loggedIn: true, expires: new Date(now + ms).toISOString(), renews: true },
      });
    expect(loginStateOf(renewing(2 * hour), now, 24 * hour)).toBe('ok');
    expect(loginStateOf(renewing(-1), now, 24 * hour)).toBe('ok');
  });
});

describe('LoginWatcher', () => {
  function watcherOver(statuses: ControlStatus[]) {
    let i = 0;
    const seen: LoginTransition[] = [];
    const watcher = new LoginWatcher({
      refresh: async () => statuses[Math.min(i++, statuses.length - 1)],
      intervalMs: 60_000,
      now: () => now,
    });
    watcher.on('transition', (t) => seen.push(t));
    return { watcher, seen };
  }

  it('announces logging out, logging in again, and an approaching expiry, once each', async () => {
    const { watcher, seen } = watcherOver([
      loggedIn(48 * hour),
      loggedIn(48 * hour),
      loggedOut,
      loggedOut,
      loggedIn(48 * hour),
      loggedIn(3 * hour),
      loggedIn(3 * hour),
    ]);
    for (let k = 0; k < 7; k++) await watcher.check();
    expect(seen.map((t) => [t.from, t.to])).toEqual([
      ['unknown', 'ok'],
      ['ok', 'logged-out'],
      ['logged-out', 'ok'],
      ['ok', 'expiring'],
    ]);
    expect(seen[0].notification).toBeUndefined(); // a normal start is not worth a notification
    expect(seen[1].notification).toEqual({
      title: 'Assistant CLI is logged out',
      body: expect.stringContaining('log in again'),
    });
    expect(seen[2].notification).toEqual({ title: 'Assistant CLI is ready', body: 'Logged in as dev@example.com.' });
    expect(seen[3].notification).toEqual({
      title: 'CLI login expires soon',
      body: expect.stringContaining('in about 3 hours'),
    });
    expect(watcher.state).toBe('expiring');
  });

  it('a stop or restart in between does not re-announce the same state', async () => {
    const { watcher, seen } = watcherOver([loggedOut, stopped, loggedOut]);
    await watcher.check();
    await watcher.check();
    await watcher.check();
    expect(seen.map((t) => t.to)).toEqual(['logged-out']);
  });

  it('announces a missing CLI and an expired token at start', () => {
    const a = watcherOver([]);
    expect(a.watcher.observe(cliMissing)?.notification?.title).toBe('Assistant CLI not found');
    const b = watcherOver([]);
    expect(b.watcher.observe(loggedIn(-hour))?.notification?.title).toBe('CLI login expired');
  });

  it('runs the probe on its interval and reports probe failures as error events', async () => {
    let calls = 0;
    const errors: Error[] = [];
    const watcher = new LoginWatcher({
      refresh: async () => {
        calls++;
        throw new Error('probe broke');
      },
      intervalMs: 20,
    });
    watcher.on('error', (e) => errors.push(e));
    watcher.start();
    await new Promise((r) => setTimeout(r, 120));
    watcher.stop();
    const after = calls;
    await new Promise((r) => setTimeout(r, 60));
    expect(after).toBeGreaterThanOrEqual(2);
    expect(calls).toBe(after);
    expect(errors[0].message).toBe('probe broke');
  });
});
