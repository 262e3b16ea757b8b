// The headless entry point (`npm run serve`) as a user runs it: exit codes and one-line messages for an
// invalid setting and a taken port, and a graceful stop on SIGTERM.

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type Server } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { freePort } from './helpers/free-port.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// The usage ledger goes here, never into the developer's own data directory.
const dataDir = mkdtempSync(join(tmpdir(), 'serve-data-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
let blocker: Server | undefined;
afterEach(() => {
  blocker?.close();
  blocker = undefined;
});

function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/cli.ts', ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

describe('npm run serve', () => {
  it('stops with exit code 2 and one line naming an invalid setting', async () => {
    const run = serve(['--port', 'eighty']);
    expect(await run.exited).toBe(2);
    expect(run.err().trim().split('\n')).toHaveLength(1);
    expect(run.err()).toMatch(/Invalid setting --port: expected an integer/);
    expect(run.err()).not.toMatch(/at .*\.ts:\d+/);
  });

  it('stops with exit code 2 for an invalid environment value', async () => {
    const run = serve([], { LOG_LEVEL: 'chatty' });
    expect(await run.exited).toBe(2);
    expect(run.err()).toMatch(/LOG_LEVEL.*expected one of/);
  });

  it('stops with exit code 2 for an alias of an unknown model, found where the one catalog is built', async () => {
    const run = serve(['--port', '0'], { MODEL_ALIASES: 'gpt-4o=gpt-5' });
    expect(await run.exited).toBe(2);
    expect(run.err().trim().split('\n')).toHaveLength(1);
    expect(run.err()).toMatch(/Invalid setting MODEL_ALIASES: gpt-4o=gpt-5 names an unknown model/);
  });

  it('--diagnose stops with exit code 2 and the same one line for every invalid setting, before any check', async () => {
    const cases: Array<{ args: string[]; env: Record<string, string>; line: RegExp }> = [
      // Once a failed check of the temporary proxy (exit 1), and not noticed at all with no mode on.
      {
        args: ['--diagnose'],
        env: { MODEL_ALIASES: 'gpt-4o=gpt-5' },
        line: /Invalid setting MODEL_ALIASES: gpt-4o=gpt-5 names an unknown model/,
      },
      {
        args: ['--diagnose'],
        env: { MODES: '', MODEL_ALIASES: 'gpt-4o=gpt-5' },
        line: /Invalid setting MODEL_ALIASES: gpt-4o=gpt-5 names an unknown model/,
      },
      { args: ['--diagnose', '--port', 'eighty'], env: {}, line: /Invalid setting --port: expected an integer/ },
      { args: ['--diagnose'], env: { LOG_LEVEL: 'chatty' }, line: /LOG_LEVEL.*expected one of/ },
      {
        args: ['--diagnose'],
        env: { ASSISTANT_PROFILE_FILE: join(dataDir, 'no-such-profile.json') },
        line: /ASSISTANT_PROFILE_FILE: cannot read/,
      },
    ];
    const runs = cases.map((c) => ({ c, run: serve(c.args, c.env) }));
    for (const { c, run } of runs) {
      const what = `${c.args.join(' ')} ${JSON.stringify(c.env)}`;
      expect(await run.exited, what).toBe(2);
      expect(run.err().trim().split('\n'), what).toHaveLength(1);
      expect(run.err(), what).toMatch(/^assistant-proxy: /);
      expect(run.err(), what).toMatch(c.line);
      expect(run.err(), what).not.toMatch(/at .*\.ts:\d+/);
      // No report: nothing was checked.
      expect(run.out(), what).toBe('');
    }
  });

  it('stops with exit code 1, the port, the host and the remedy when the port is taken', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    const run = serve(['--port', String(port)]);
    expect(await run.exited).toBe(1);
    expect(run.err()).toContain(`Port ${port} already in use on 127.0.0.1`);
    expect(run.err()).toMatch(/--port or PORT/);
    expect(run.err()).not.toMatch(/at .*\.ts:\d+/);
  });

  it('serves, then shuts down cleanly on SIGTERM', async () => {
    const port = await freePort();
    const run = serve([], { PORT: String(port) });
    for (let i = 0; i < 100 && !run.err().includes('listening'); i++) await new Promise((r) => setTimeout(r, 100));
    expect(run.err()).toContain(`listening on http://127.0.0.1:${port}`);
    const res = await fetch(`http://127.0.0.1:${port}/v1/models`);
    expect(res.status).toBe(200);
    // The owner's key: made at first start, owner-only in the data directory, and the start-up says where.
    const keyFile = join(dataDir, 'owner-key');
    expect(run.err()).toContain(`owner key: ${keyFile}`);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(run.err()).not.toContain(key);
    expect((await fetch(`http://127.0.0.1:${port}/usage/summary`)).status).toBe(401);
    expect(
      (await fetch(`http://127.0.0.1:${port}/usage/summary`, { headers: { authorization: `Bearer ${key}` } })).status,
    ).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  });
});
