import { describe, expect, it } from 'vitest';
import { guessFromDesktop, hasTrayHost, nameHasOwnerArgs, parseNameHasOwner } from './tray-host.js';

describe('tray host detection', () => {
  it('parses dbus-send replies', () => {
    expect(parseNameHasOwner('method return time=1 sender=org.freedesktop.DBus\n   boolean true\n')).toBe(true);
    expect(parseNameHasOwner('   boolean false\n')).toBe(false);
    expect(parseNameHasOwner('Error org.freedesktop.DBus.Error')).toBeUndefined();
  });

  it('always has one on macOS and Windows', async () => {
    expect(await hasTrayHost({ platform: 'darwin', env: {} })).toBe(true);
    expect(await hasTrayHost({ platform: 'win32', env: {} })).toBe(true);
  });

  it('asks D-Bus for a StatusNotifier watcher on Linux', async () => {
    const asked: string[][] = [];
    const answer = (reply: string) => async (_f: string, args: string[]) => {
      asked.push(args);
      return reply;
    };
    const env = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus', XDG_CURRENT_DESKTOP: 'KDE' };
    expect(await hasTrayHost({ platform: 'linux', env, run: answer('boolean true') })).toBe(true);
    expect(await hasTrayHost({ platform: 'linux', env, run: answer('boolean false') })).toBe(false);
    expect(asked[0]).toEqual(nameHasOwnerArgs);
  });

  it('falls back to the desktop name when D-Bus cannot be asked: GNOME has no tray host', async () => {
    const broken = async () => {
      throw new Error('dbus-send: not found');
    };
    expect(
      await hasTrayHost({
        platform: 'linux',
        env: { DISPLAY: ':0', XDG_CURRENT_DESKTOP: 'ubuntu:GNOME' },
        run: broken,
      }),
    ).toBe(false);
    expect(
      await hasTrayHost({ platform: 'linux', env: { DISPLAY: ':0', XDG_CURRENT_DESKTOP: 'XFCE' }, run: broken }),
    ).toBe(true);
    expect(guessFromDesktop({ DESKTOP_SESSION: 'gnome' })).toBe(false);
  });

  it('no display and no session bus: no tray', async () => {
    expect(await hasTrayHost({ platform: 'linux', env: {} })).toBe(false);
  });
});
