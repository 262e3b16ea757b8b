// The real Electron app end to end: launched with Playwright's Electron driver against a fresh settings
// directory and a fake CLI, it must open its window, run the proxy, and end it on Quit. Runs only where an
// Electron binary is installed (here it is not: Electron's package fetches it on the first `npm start` or
// `npx install-electron`, and GitHub is out of reach here).

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { _electron as electron } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { makeFakeCli } from '../fixtures/fake-cli.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

function electronBinary(): { path?: string; why?: string } {
  if (process.env.ELECTRON_PATH)
    return existsSync(process.env.ELECTRON_PATH)
      ? { path: process.env.ELECTRON_PATH }
      : { why: `ELECTRON_PATH ${process.env.ELECTRON_PATH} does not exist` };
  try {
    const pkg = createRequire(import.meta.url).resolve('electron/package.json');
    const pathTxt = join(dirname(pkg), 'path.txt');
    if (!existsSync(pathTxt))
      return { why: 'the electron package has no binary yet (path.txt missing; `npx install-electron` fetches it)' };
    const bin = join(dirname(pkg), 'dist', readFileSync(pathTxt, 'utf8').trim());
    return existsSync(bin) ? { path: bin } : { why: `Electron binary ${bin} is missing` };
  } catch (err) {
    return { why: `electron is not installed (${(err as Error).message})` };
  }
}

const bin = electronBinary();
if (!bin.path) console.warn(`[electron-app.e2e.test] skipped: ${bin.why}`);
const headless = process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY;
if (bin.path && headless) console.warn('[electron-app.e2e.test] skipped: no DISPLAY for Electron (run under xvfb-run)');

describe.skipIf(!bin.path || headless)('Electron app end to end', () => {
  it('opens the window, runs the proxy on the stored port, and ends it on Quit', async () => {
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: repo, stdio: 'inherit' });
    execFileSync('npx', ['vite', 'build'], { cwd: repo, stdio: 'inherit' });
    const userData = mkdtempSync(join(tmpdir(), 'app-e2e-'));
    const fake = await makeFakeCli({});
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((r) => probe.close(r));
    writeFileSync(join(userData, 'settings.json'), JSON.stringify({ port, logLevel: 'silent', cliPath: fake.path }));
    const app = await electron.launch({
      executablePath: bin.path,
      args: [repo, '--no-sandbox'],
      env: { ...process.env, ASSISTANT_PROXY_USER_DATA: userData },
    });
    try {
      const page = await app.firstWindow();
      await page.waitForSelector('body[data-ready=true]');
      await expect.poll(() => page.textContent('#state'), { timeout: 15_000 }).toBe('Running');
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      // The page has the bridge and nothing of Node.
      expect(await page.evaluate(() => typeof (window as unknown as { control?: unknown }).control)).toBe('object');
      expect(await page.evaluate(() => typeof (globalThis as unknown as { require?: unknown }).require)).toBe(
        'undefined',
      );
      await app.evaluate(({ app: electronApp }) => electronApp.quit());
      await app.waitForEvent('close');
      await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
    } finally {
      await app.close().catch(() => undefined);
      await fake.cleanup();
      rmSync(userData, { recursive: true, force: true });
    }
  }, 120_000);
});
