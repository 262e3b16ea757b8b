// Shared set-up of the window's browser tests: the page built with Vite from the current sources and served from
// a local static server, a REAL ProxyController (tool mode on the fake CLI, direct and response-API modes on the
// simulator) behind the same ControlApi object the Electron main process uses (createControlService), bridged
// into Chromium with Playwright's exposeFunction exactly as the preload exposes it. Plus the checks every tab
// gets: geometry (nothing wider than its card, no sideways scroll) and axe-core.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { build } from 'vite';
import { createControlService, type ControlServiceDeps } from '../../src/main/control-service.js';
import { controlMethods } from '../../src/main/ipc.js';
import type { Settings } from '../../src/proxy/config.js';
import type { ControlApi } from '../../src/proxy/control-api.js';
import { ProxyController } from '../../src/proxy/controller.js';
import type { UsageLedger } from '../../src/proxy/usage/ledger.js';
import { Writable } from 'node:stream';
import { createLogger, LogTap, type Logger } from '../../src/proxy/logger.js';
import { makeFakeCli, type FakeCli } from '../fixtures/fake-cli.js';
import { freePort } from '../helpers/free-port.js';
import { startSimulator, writeCliCredentials, writeRespapiCredentials, type Simulator } from '../simulator/index.js';

export const chromiumPath = '/usr/bin/chromium';
export const haveChromium = existsSync(chromiumPath);
export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
export const artifacts = join(repoRoot, 'test-artifacts');
const types: Record<string, string> = {
  '.html': 'text/html',
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.map': 'application/json',
};

async function serveStatic(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)).replace(
      /^(\.\.[/\\])+/,
      '',
    );
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

export interface Harness {
  controller: ProxyController;
  /** The controller's logger and its tap (what the Log tab shows). */
  logger: Logger;
  tap: LogTap;
  api: ControlApi;
  fake: FakeCli;
  sim: Simulator;
  port: number;
  dir: string;
  copied: string[];
  pageErrors: string[];
  open(opts?: { width?: number; height?: number; colorScheme?: 'light' | 'dark'; api?: ControlApi }): Promise<Page>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  settings?: Settings;
  /** A usage ledger the proxy records into (as the app's is) and the window reads. */
  usage?: UsageLedger;
  logger?: Logger;
  /** Extra ControlService deps (the usage ledger) or a wrapper of the service. */
  serviceDeps?: Partial<ControlServiceDeps>;
  wrapApi?: (api: ControlApi, h: Omit<Harness, 'open' | 'close' | 'api'>) => ControlApi;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'renderer-'));
  const outDir = join(dir, 'site');
  await build({
    configFile: join(repoRoot, 'vite.config.ts'),
    logLevel: 'silent',
    build: { outDir, emptyOutDir: true, sourcemap: false },
  });
  const site = await serveStatic(outDir);
  await mkdir(artifacts, { recursive: true });

  const fake = await makeFakeCli({ version: '9.8.7 (Assistant CLI)' });
  const port = await freePort();
  const sim = await startSimulator();
  const respapiCredentialsPath = await writeRespapiCredentials(join(dir, 'respapi'), {});
  const credentialsPath = await writeCliCredentials(join(dir, 'cli'), {
    accessToken: 'sk-ant-oat01-window-test-token-0123456789',
    refreshToken: 'sk-ant-ort01-window-refresh-0123456789',
    expiresAt: Date.now() + 5 * 3_600_000,
  });
  // The app's logger shape: a destination (here discarded) plus the tap the live log reads.
  const tap = new LogTap(1000);
  const logger = opts.logger ?? createLogger('info', new Writable({ write: (_c, _e, done) => done() }), tap);
  const controller = new ProxyController({
    settings: {
      port,
      logLevel: 'info',
      cliPath: fake.path,
      shutdownGraceMs: 500,
      healthRefreshMs: 60_000,
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      respapiBaseUrl: sim.respapiBaseUrl,
      respapiOauthTokenUrl: sim.respapiTokenUrl,
      respapiCredentialsPath,
      dataDir: join(dir, 'data'),
      ...opts.settings,
    },
    logger,
    usage: opts.usage,
  });
  await controller.start();
  const copied: string[] = [];
  const pageErrors: string[] = [];
  const base = { controller, logger, tap, fake, sim, port, dir, copied, pageErrors };
  const service = createControlService(controller, {
    copyText: (t) => void copied.push(t),
    pickCliPath: async () => fake.path,
    logTap: tap,
    usage: opts.usage,
    ...opts.serviceDeps,
  });
  const api = opts.wrapApi ? opts.wrapApi(service, base) : service;

  const browser: Browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--headless',
    ],
  });

  const open: Harness['open'] = async (o = {}) => {
    const context = await browser.newContext({
      viewport: { width: o.width ?? 1280, height: o.height ?? 800 },
      colorScheme: o.colorScheme ?? 'light',
    });
    const page = await context.newPage();
    const served = o.api ?? api;
    page.on('pageerror', (err) => pageErrors.push(err.message));
    // The same shape the preload gives the page in the app: one async function per ControlApi method.
    await page.exposeFunction('__controlInvoke', (method: string, args: unknown[]) => {
      if (!(controlMethods as readonly string[]).includes(method)) throw new Error(`unknown method ${method}`);
      return (served[method as keyof ControlApi] as (...a: unknown[]) => Promise<unknown>)(...args);
    });
    await page.addInitScript(
      (methods: string[]) => {
        const invoke = (window as unknown as { __controlInvoke(m: string, a: unknown[]): Promise<unknown> })
          .__controlInvoke;
        const control: Record<string, unknown> = Object.fromEntries(
          methods.map((m) => [m, (...a: unknown[]) => invoke(m, a)]),
        );
        // The preload's push subscription for the tray's tab requests; tests call window.__show(...) to push one.
        control.onShow = (listener: (what: unknown) => void) => {
          (window as unknown as { __show: (what: unknown) => void }).__show = listener;
          return () => undefined;
        };
        (window as unknown as { control: Record<string, unknown> }).control = control;
      },
      [...controlMethods],
    );
    await page.goto(site.url);
    await page.waitForSelector('body[data-ready=true]');
    return page;
  };

  return {
    ...base,
    api,
    open,
    async close() {
      await browser.close();
      await controller.stop(200);
      site.server.close();
      await fake.cleanup();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves when a GET answers; rejects with the connection error otherwise. */
export const get = (port: number, path = '/health', init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000), ...init });
export const refuses = async (port: number) =>
  get(port).then(
    () => false,
    (err: Error & { cause?: { code?: string } }) => err.cause?.code === 'ECONNREFUSED',
  );

export async function showTab(
  page: Page,
  name: 'overview' | 'usage' | 'log' | 'diagnose' | 'connect' | 'settings',
): Promise<void> {
  await page.click(`#tab-${name}`);
  await page.waitForSelector(`#panel-${name}:not([hidden])`, { state: 'attached' });
}

/**
 * Layout faults a user sees: the page scrolls sideways, a box scrolls sideways inside its card, or an element
 * pokes out of its card (clipped text like `api_key="dum`). Returns a description of each, empty when clean.
 */
export async function layoutProblems(page: Page): Promise<string[]> {
  // Let resize observers (the chart) and layout settle after a viewport change.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  await page.waitForTimeout(50);
  return page.evaluate(() => {
    const out: string[] = [];
    const doc = document.documentElement;
    if (doc.scrollWidth > doc.clientWidth + 1)
      out.push(`page scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
    const name = (e: Element) =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ')[0]}` : ''} "${(e.textContent ?? '').trim().slice(0, 30)}"`;
    const visible = (e: Element) => {
      const r = e.getBoundingClientRect();
      return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== 'hidden';
    };
    // The top bar is one line at every size: state, address, Copy, Open log file and Stop side by side (a longer pill
    // or address shrinks, with an ellipsis, instead of pushing Stop onto a second line).
    const bar = document.querySelector('header.topbar');
    const items = bar ? [...bar.children].filter(visible).map((e) => [e, e.getBoundingClientRect()] as const) : [];
    const lowestTop = Math.max(...items.map(([, r]) => r.top));
    const highestBottom = Math.min(...items.map(([, r]) => r.bottom));
    if (items.length > 0 && lowestTop >= highestBottom)
      out.push(
        `the top bar wraps: ${items
          .filter(([, r]) => r.top >= highestBottom)
          .map(([e]) => name(e))
          .join(', ')} on a second line`,
      );
    for (const card of document.querySelectorAll('section, header.topbar, nav.tabs')) {
      if (!visible(card)) continue;
      const box = card.getBoundingClientRect();
      for (const e of card.querySelectorAll('*')) {
        if (!visible(e) || e.closest('.visually-hidden')) continue;
        const r = e.getBoundingClientRect();
        if (r.right > box.right + 1 || r.left < box.left - 1)
          out.push(
            `${name(e)} is outside its card ${name(card).slice(0, 40)}: ${Math.round(r.left)}..${Math.round(r.right)} vs ${Math.round(box.left)}..${Math.round(box.right)}`,
          );
        const style = getComputedStyle(e);
        if (/(auto|scroll)/.test(style.overflowX) && e.scrollWidth > e.clientWidth + 1)
          out.push(`${name(e)} scrolls sideways: ${e.scrollWidth} > ${e.clientWidth}`);
      }
    }
    return out;
  });
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations on the page as it is now (one line each, with the first target). */
export async function axeViolations(page: Page): Promise<string[]> {
  // evaluate() runs outside the page's CSP, which (rightly) refuses inline scripts.
  await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(
            ctx: Document,
            o: object,
          ): Promise<{
            violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
          }>;
        };
      }
    ).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      target: v.nodes
        .map((n) => n.target.join(' '))
        .slice(0, 3)
        .join(', '),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help} (${v.target})`);
}

export const screenshot = (page: Page, name: string) =>
  page.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true });
