// Whether a tray icon will be visible. Windows and macOS always show one. On Linux a tray needs a
// StatusNotifier host on the session bus (KDE, most desktops; GNOME only with an extension), so we ask D-Bus
// whether org.kde.StatusNotifierWatcher has an owner; if D-Bus cannot be asked, GNOME is assumed to have none.
// Without a tray host the window is the only way to reach the app, so closing it quits.

import { execFile } from 'node:child_process';

export type RunCommand = (file: string, args: string[], timeoutMs: number) => Promise<string>;

const run: RunCommand = (file, args, timeoutMs) =>
  new Promise((resolve, reject) => {
    execFile(file, args, { timeout: timeoutMs, killSignal: 'SIGKILL' }, (err, stdout) =>
      err ? reject(err) : resolve(String(stdout)),
    );
  });

export const nameHasOwnerArgs = [
  '--session',
  '--print-reply',
  '--dest=org.freedesktop.DBus',
  '/org/freedesktop/DBus',
  'org.freedesktop.DBus.NameHasOwner',
  'string:org.kde.StatusNotifierWatcher',
];

/** Parses dbus-send's reply ("   boolean true"). */
export function parseNameHasOwner(stdout: string): boolean | undefined {
  const m = /boolean\s+(true|false)/.exec(stdout);
  return m ? m[1] === 'true' : undefined;
}

/** The fallback guess from the desktop name when D-Bus cannot be asked. */
export function guessFromDesktop(env: NodeJS.ProcessEnv): boolean {
  const desktop = `${env.XDG_CURRENT_DESKTOP ?? ''}:${env.DESKTOP_SESSION ?? ''}`.toLowerCase();
  return !desktop.includes('gnome');
}

export async function hasTrayHost(
  opts: { platform?: NodeJS.Platform; env?: NodeJS.ProcessEnv; run?: RunCommand } = {},
): Promise<boolean> {
  const platform = opts.platform ?? process.platform;
  const env = opts.env ?? process.env;
  if (platform !== 'linux') return true;
  if (!env.DBUS_SESSION_BUS_ADDRESS && !env.DISPLAY && !env.WAYLAND_DISPLAY) return false;
  try {
    const answer = parseNameHasOwner(await (opts.run ?? run)('dbus-send', nameHasOwnerArgs, 2000));
    if (answer !== undefined) return answer;
  } catch {
    /* no dbus-send, or no session bus: guess below */
  }
  return guessFromDesktop(env);
}
