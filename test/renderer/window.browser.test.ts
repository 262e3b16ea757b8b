// The desktop window's page in real Chromium (Playwright), wired to a REAL ProxyController and proxy running in
// this test process through the same ControlApi object the Electron main process uses (createControlService).
// The page is built with Vite from the current sources and served from a local static server. Skips, saying
// why, only when Chromium is not installed.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlService } from '../../src/main/control-service.js';
import { controlMethods } from '../../src/main/ipc.js';
import type { ControlApi } from '../../src/proxy/control-api.js';
import { ProxyController } from '../../src/proxy/controller.js';
import { makeFakeCli, type FakeCli } from '../fixtures/fake-cli.js';
import { freePort } from '../helpers/free-port.js';
import { startSimulator, writeRespapiCredentials, type Simulator } from '../simulator/index.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium) console.warn(`[window.browser.test] skipped: ${chromiumPath} is not installed (apt-get install -y chromium)`);

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const artifacts = join(repoRoot, 'test-artifacts');
const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.map': 'application/json' };


async function serveStatic(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    try {
      const file = join(dir, path === '/' ? 'index.html' : path);
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** Resolves when a GET answers; rejects with the connection error otherwise. */
const get = (port: number, path = '/health') => fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
const refuses = async (port: number) => get(port).then(() => false, (err: Error & { cause?: { code?: string } }) => err.cause?.code === 'ECONNREFUSED');

describe.skipIf(!haveChromium)('desktop window in Chromium against a real proxy', () => {
  let outDir: string;
  let site: { url: string; server: Server };
  let browser: Browser;
  let page: Page;
  let controller: ProxyController;
  let fake: FakeCli;
  let sim: Simulator;
  let port: number;
  const copied: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    outDir = await mkdtemp(join(tmpdir(), 'renderer-build-'));
    await build({ configFile: join(repoRoot, 'vite.config.ts'), logLevel: 'silent', build: { outDir, emptyOutDir: true, sourcemap: false } });
    site = await serveStatic(outDir);
    await mkdir(artifacts, { recursive: true });

    fake = await makeFakeCli({ version: '9.8.7 (Assistant CLI)' });
    port = await freePort();
    sim = await startSimulator();
    const respapiCredentialsPath = await writeRespapiCredentials(outDir, {});
    controller = new ProxyController({
      settings: {
        port,
        logLevel: 'silent',
        cliPath: fake.path,
        shutdownGraceMs: 500,
        healthRefreshMs: 60_000,
        respapiBaseUrl: sim.respapiBaseUrl,
        respapiOauthTokenUrl: sim.respapiTokenUrl,
        respapiCredentialsPath,
      },
    });
    await controller.start();
    const api: ControlApi = createControlService(controller, { copyText: (t) => void copied.push(t), pickCliPath: async () => fake.path });

    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--headless'],
    });
    page = await browser.newPage({ viewport: { width: 1200, height: 1400 } });
    page.on('pageerror', (err) => pageErrors.push(err.message));
    // The same shape the preload gives the page in the app: one async function per ControlApi method.
    await page.exposeFunction('__controlInvoke', (method: string, args: unknown[]) => {
      if (!(controlMethods as readonly string[]).includes(method)) throw new Error(`unknown method ${method}`);
      return (api[method as keyof ControlApi] as (...a: unknown[]) => Promise<unknown>)(...args);
    });
    await page.addInitScript((methods: string[]) => {
      const invoke = (window as unknown as { __controlInvoke(m: string, a: unknown[]): Promise<unknown> }).__controlInvoke;
      (window as unknown as { control: Record<string, unknown> }).control = Object.fromEntries(methods.map((m) => [m, (...a: unknown[]) => invoke(m, a)]));
    }, [...controlMethods]);
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready=true]');
  });

  afterAll(async () => {
    await browser?.close();
    await controller?.stop(200);
    site?.server.close();
    await fake?.cleanup();
    await sim?.close();
    if (outDir) await rm(outDir, { recursive: true, force: true });
  });

  it('shows a running proxy, its components and live metrics after requests', async () => {
    await expect.poll(() => page.textContent('#state')).toBe('Running');
    expect(await page.textContent('#address')).toContain(`http://127.0.0.1:${port}/compat/v1`);
    await expect.poll(() => page.textContent('#cli-status')).toBe('Found');
    expect(await page.textContent('#cli-path')).toBe(fake.path);
    expect(await page.textContent('#cli-version')).toBe('9.8.7');
    expect(await page.textContent('#login-status')).toBe('Yes');
    expect(await page.textContent('#uptime')).toMatch(/^\d+h \d+m \d+s$/);

    for (let i = 0; i < 3; i++) expect((await get(port, '/v1/models')).status).toBe(200);
    expect((await get(port, '/health')).status).toBe(200);
    expect((await get(port, '/no/such/route')).status).toBe(404);

    await expect.poll(() => page.textContent('#m-rpm'), { timeout: 5000 }).toBe('5');
    expect(Number(await page.textContent('#m-errors'))).toBe(1);
    expect(await page.textContent('#m-p50')).toMatch(/\d+ ms|\d\.\d+ s/);
    expect(await page.textContent('#m-p95')).toMatch(/\d+ ms|\d\.\d+ s/);
    const rows = await page.$$eval('#requests tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toHaveLength(5);
    expect(rows.some((r) => r[1] === 'GET /v1/models' && r[4] === '200')).toBe(true);
    expect(rows.some((r) => r[4] === '404')).toBe(true);
    expect(await page.isVisible('#chart canvas')).toBe(true);
    await page.screenshot({ path: join(artifacts, 'window-running.png'), fullPage: true });
  });

  it('lists response-API sessions and ends one on request', async () => {
    const ask = () =>
      fetch(`http://127.0.0.1:${port}/respapi/window-session/responses`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await ask()).status).toBe(200);
    expect((await ask()).status).toBe(200);
    const row = () => page.$$eval('#session-rows tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    await expect.poll(row, { timeout: 5000 }).toEqual([[ 'window-session', '2', expect.any(String), expect.any(String), 'End' ]]);
    expect(await page.isVisible('#sessions-empty')).toBe(false);
    await page.click('#session-rows button');
    await expect.poll(row, { timeout: 5000 }).toEqual([]);
    expect(await page.isVisible('#sessions-empty')).toBe(true);
    expect(controller.sessions()).toEqual([]);
  });

  it('refuses port 70000 inline and keeps the proxy where it was', async () => {
    await page.fill('#port', '70000');
    await expect.poll(() => page.textContent('#port-hint')).toContain('1 to 65535');
    await page.click('#apply');
    await expect.poll(() => page.textContent('[data-error-for=port]')).toMatch(/integer from 0 to 65535/);
    expect(await page.getAttribute('#port', 'aria-invalid')).toBe('true');
    expect((await get(port)).status).toBe(200);
    expect(controller.status()).toMatchObject({ state: 'running', port });
    await page.screenshot({ path: join(artifacts, 'window-invalid-port.png'), fullPage: true });
  });

  it('refuses a port another server holds, inline, and keeps the proxy running on the old port', async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      await page.fill('#port', String(taken));
      await expect.poll(() => page.textContent('#port-hint')).toContain(`Port ${taken} already in use`);
      await page.click('#apply');
      await expect.poll(() => page.textContent('[data-error-for=port]')).toContain(`Port ${taken} already in use`);
      expect(await page.textContent('#settings-message')).toContain('previous settings were kept');
      expect((await get(port)).status).toBe(200);
      await expect.poll(() => page.textContent('#state')).toBe('Running');
      expect(await page.textContent('#address')).toContain(`:${port}`);
      await page.screenshot({ path: join(artifacts, 'window-port-taken.png'), fullPage: true });
    } finally {
      blocker.close();
    }
  });

  it('moves the proxy to a new free port: the old port refuses, the new one answers', async () => {
    const next = await freePort();
    await page.fill('#port', String(next));
    await page.click('#apply');
    await expect.poll(() => page.textContent('#settings-message'), { timeout: 10_000 }).toContain(`running on http://127.0.0.1:${next}`);
    expect(await page.textContent('[data-error-for=port]')).toBe('');
    expect((await get(next)).status).toBe(200);
    expect(await refuses(port)).toBe(true);
    expect(await page.inputValue('#port')).toBe(String(next));
    await expect.poll(() => page.textContent('#address')).toContain(`:${next}/compat/v1`);
    port = next;
  });

  it('stops and starts the proxy from the window', async () => {
    await page.click('#toggle');
    await expect.poll(() => page.textContent('#state')).toBe('Stopped');
    expect(await refuses(port)).toBe(true);
    await page.screenshot({ path: join(artifacts, 'window-stopped.png'), fullPage: true });
    await expect.poll(() => page.textContent('#toggle')).toBe('Start');
    await page.click('#toggle');
    await expect.poll(() => page.textContent('#state')).toBe('Running');
    expect((await get(port)).status).toBe(200);
  });

  it('checks settings in the page before sending them (CORS on with no origin, no mode on)', async () => {
    await page.check('#corsOn');
    await page.fill('#corsOrigins', '');
    for (const box of await page.$$('input[name=modes]')) await box.uncheck();
    await page.click('#apply');
    expect(await page.textContent('[data-error-for=corsOrigins]')).toContain('at least one origin');
    expect(await page.textContent('[data-error-for=modes]')).toContain('at least one mode');
    await page.click('#revert');
    expect(await page.textContent('[data-error-for=modes]')).toBe('');
  });

  it('applies CORS origins and modes through the real schema', async () => {
    await page.check('#corsOn');
    await page.fill('#corsOrigins', 'http://localhost:3000');
    await page.uncheck('input[name=modes][value=respapi]');
    await page.click('#apply');
    await expect.poll(() => page.textContent('#settings-message'), { timeout: 10_000 }).toContain('Settings applied');
    expect(controller.getSettings()).toMatchObject({ corsOrigins: ['http://localhost:3000'], modes: ['tool', 'direct'] });
    const res = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { origin: 'http://localhost:3000' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('copies a client snippet built from the current base URL, and fills the CLI path from the picker', async () => {
    await page.selectOption('#snippet-select', 'curl');
    expect(await page.textContent('#snippet-text')).toContain(`http://127.0.0.1:${port}/compat/v1/chat/completions`);
    await page.click('#copy-snippet');
    await expect.poll(() => copied.at(-1)).toContain(`curl http://127.0.0.1:${port}/compat/v1/chat/completions`);
    await page.selectOption('#snippet-select', 'openai-python');
    expect(await page.textContent('#snippet-text')).toContain(`base_url="http://127.0.0.1:${port}/compat/v1"`);
    await page.fill('#cliPath', '');
    await page.click('#pick-cli');
    await expect.poll(() => page.inputValue('#cliPath')).toBe(fake.path);
  });

  it('shows a notice until it is dismissed', async () => {
    controller.addNotice('The settings file could not be read; defaults are in use.');
    await expect.poll(() => page.textContent('#notices')).toContain('defaults are in use');
    await page.screenshot({ path: join(artifacts, 'window-notice.png'), fullPage: true });
    await page.click('#notices button');
    await expect.poll(() => page.locator('#notices li').count()).toBe(0);
    expect(controller.status().notices).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
