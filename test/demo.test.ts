// `npm run demo` (README.md): a new user with no CLI and no subscription sees every mode answer end to end.
// Runs the script as a user would, on a free port, and sends the README's curl requests with fetch.

import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { freePort } from './helpers/free-port.js';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('npm run demo', () => {
  it('labels itself a demonstration and answers in tool, direct and response-API mode, then stops cleanly', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--port', String(port)], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: '1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let banner = '';
    child.stderr.on('data', (c: Buffer) => (banner += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await expect.poll(() => banner.includes('Ctrl-C'), { timeout: 20_000 }).toBe(true);
      expect(banner).toContain('DEMONSTRATION MODE');
      const base = `http://127.0.0.1:${port}`;
      const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
        fetch(base + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(body),
        });
      expect((await fetch(`${base}/health`)).status).toBe(200);
      const tool = (await (
        await post('/compat/v1/chat/completions', {
          model: 'assistant-sonnet-4-20250514',
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).json()) as any;
      expect(tool.choices[0].message.content).toMatch(/demo CLI/);
      const direct = (await (
        await post(
          '/api/v1/messages',
          { model: 'assistant-sonnet-4-20250514', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] },
          { 'x-api-key': 'dummy' },
        )
      ).json()) as any;
      expect(direct.content[0].text).toMatch(/demo simulator/);
      const respapi = await post('/respapi/responses', { model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] });
      expect(respapi.status).toBe(200);
      expect(((await respapi.json()) as any).status).toBe('completed');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 60_000);

  it('leaves nothing behind when its port is taken', async () => {
    const { createServer } = await import('node:net');
    const { readdir } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as { port: number }).port;
    const demoDirs = async () => (await readdir(tmpdir())).filter((n) => n.startsWith('assistant-proxy-demo-'));
    const before = await demoDirs();
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', PORT: String(port), LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let err = '';
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(1);
      expect(err).toContain(`Port ${port} already in use`);
      expect((await demoDirs()).filter((d) => !before.includes(d))).toEqual([]);
    } finally {
      blocker.close();
    }
  }, 60_000);
});
