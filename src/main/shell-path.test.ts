import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loginShellPath, mergePaths, parseShellPath, shellPathCommand, type RunShell } from './shell-path.js';

describe('parseShellPath', () => {
  it('takes what is between the markers, ignoring profile noise around them', () => {
    expect(parseShellPath('Welcome!\n__PATH__/home/u/.local/bin:/usr/bin__PATH__')).toBe('/home/u/.local/bin:/usr/bin');
    expect(parseShellPath('\u001b[32mhi\u001b[0m__PATH__/opt/bin:/bin__PATH__\nbye')).toBe('/opt/bin:/bin');
    expect(parseShellPath('__PATH__\u001b[0m/usr/bin__PATH__')).toBe('/usr/bin');
  });

  it('is undefined without both markers or with an empty PATH', () => {
    expect(parseShellPath('/usr/bin')).toBeUndefined();
    expect(parseShellPath('__PATH__/usr/bin')).toBeUndefined();
    expect(parseShellPath('__PATH____PATH__')).toBeUndefined();
  });
});

describe('mergePaths', () => {
  it('puts the shell entries first and drops duplicates and empties', () => {
    expect(mergePaths('/a:/b::/c', '/usr/bin:/b:/d', ':')).toBe('/a:/b:/c:/usr/bin:/d');
    expect(mergePaths(undefined, '/usr/bin', ':')).toBe('/usr/bin');
  });
});

describe('shellPathCommand', () => {
  it('uses ${PATH} so the closing marker is not read as part of the variable name; fish gets its own syntax', () => {
    expect(shellPathCommand('/bin/zsh')).toEqual(['-ilc', `printf '%s' "__PATH__\${PATH}__PATH__"`]);
    expect(shellPathCommand('/usr/bin/fish')[1]).toBe("printf '__PATH__%s__PATH__' (string join : $PATH)");
  });
});

describe('loginShellPath', () => {
  it('runs the user shell as a login shell and merges its PATH over the inherited one', async () => {
    const calls: Array<[string, string[], number]> = [];
    const run: RunShell = async (file, args, { timeoutMs }) => {
      calls.push([file, args, timeoutMs]);
      return 'motd\n__PATH__/home/u/.local/bin:/usr/bin__PATH__';
    };
    const r = await loginShellPath({ platform: 'darwin', env: { SHELL: '/bin/zsh', PATH: '/usr/bin:/bin' }, run });
    expect(r).toEqual({ path: '/home/u/.local/bin:/usr/bin:/bin', source: 'login-shell' });
    expect(calls).toEqual([['/bin/zsh', shellPathCommand('/bin/zsh'), 5000]]);
  });

  it('keeps the inherited PATH, with the reason, when the shell fails, times out or prints nothing useful', async () => {
    const failing: RunShell = async () => {
      throw new Error('Command failed: timed out');
    };
    expect(
      await loginShellPath({ platform: 'linux', env: { SHELL: '/bin/bash', PATH: '/usr/bin' }, run: failing }),
    ).toEqual({
      path: '/usr/bin',
      source: 'inherited',
      error: '/bin/bash -ilc failed: Command failed: timed out',
    });
    const silent: RunShell = async () => 'nothing here';
    expect(
      await loginShellPath({ platform: 'linux', env: { SHELL: '/bin/bash', PATH: '/usr/bin' }, run: silent }),
    ).toMatchObject({ path: '/usr/bin', source: 'inherited' });
  });

  it('does nothing on Windows (GUI apps get the user PATH there)', async () => {
    const run: RunShell = async () => {
      throw new Error('must not run');
    };
    expect(await loginShellPath({ platform: 'win32', env: { PATH: 'C:\\bin' }, run })).toEqual({
      path: 'C:\\bin',
      source: 'inherited',
    });
  });

  it.skipIf(!existsSync('/bin/sh'))('reads PATH from a real /bin/sh login shell', async () => {
    const r = await loginShellPath({
      platform: 'linux',
      env: { SHELL: '/bin/sh', PATH: '/usr/bin:/bin:/opt/marker-dir', HOME: '/nonexistent' },
    });
    expect(r.source).toBe('login-shell');
    expect(r.path.split(':')).toContain('/opt/marker-dir');
  });
});
