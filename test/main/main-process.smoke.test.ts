// The built Electron main process (dist/main/index.js) run for real under plain Node, with `electron` routed to a
// recording fake (test/main/fake-electron/), as a child process so its module state and signal handlers stay out
// of the test runner. The Electron binary cannot be installed here, so this is what executes index.ts's wiring:
// settings → proxy → window → tray → IPC → login watcher, and the quit sequence (docs/desktop.md).

import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { validateSettings } from '../../src/proxy/config.js';
import { channelOf, controlMethods, statusPushChannel } from '../../src/main/ipc.js';
import { makeFakeCli, type FakeCli } from '../fixtures/fake-cli.js';
import { freePort } from '../helpers/free-port.js';
import viteConfig from '../../vite.config.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const distMain = join(repo, 'dist', 'main');
const mainScript = join(distMain, 'index.js');
const preloadHooks = fileURLToPath(new URL('./fake-electron/register.mjs', import.meta.url));

/** Rebuilds dist/ with the project's build config unless every compiled file is newer than its source. */
function buildIfStale(): void {
  const stale = (dir: string): boolean =>
    readdirSync(join(repo, 'src', dir), { recursive: true, encoding: 'utf8' }).some((file) => {
      if (!/\.c?ts$/.test(file) || file.endsWith('.test.ts')) return false;
      const out = join(repo, 'dist', dir, file.replace(/\.ts$/, '.js').replace(/\.cts$/, '.cjs'));
      return !existsSync(out) || statSync(out).mtimeMs < statSync(join(repo, 'src', dir, file)).mtimeMs;
    });
  if (stale('main') || stale('proxy')) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: repo, stdio: 'pipe' });
}

interface Message {
  type: string;
  [key: string]: any;
}

interface MenuItem {
  label?: string;
  type: string;
  enabled: boolean;
  checked?: boolean;
  submenu?: MenuItem[];
}

/** The app under the fake: every report it sends, its output, and commands to drive it. */
class AppProcess {
  readonly messages: Message[] = [];
  output = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private nextId = 1;
  private readonly listeners = new Set<() => void>();

  constructor(readonly child: ChildProcess) {
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.on('message', (m: Message) => {
      this.messages.push(m);
      for (const l of this.listeners) l();
    });
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  static start(env: NodeJS.ProcessEnv, args: string[] = []): AppProcess {
    const child = spawn(process.execPath, ['--import', preloadHooks, mainScript, ...args], { cwd: repo, env, stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    return new AppProcess(child);
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first report (past or future) that matches. */
  waitFor(what: string, match: (m: Message) => boolean, timeoutMs = 10_000): Promise<Message> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.messages.find(match);
        if (!found) return;
        cleanup();
        resolve(found);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out waiting for ${what}; app output:\n${this.output.slice(-3000)}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.listeners.delete(check);
      };
      this.listeners.add(check);
      check();
    });
  }

  async command(cmd: string, extra: Record<string, unknown> = {}): Promise<{ ok: boolean; value?: any; error?: string }> {
    const id = this.nextId++;
    this.child.send({ cmd, id, ...extra });
    const reply = await this.waitFor(`reply to ${cmd}`, (m) => m.type === 'reply' && m.id === id);
    return { ok: reply.ok, value: reply.value, error: reply.error };
  }

  /** Invokes a ControlApi method the way the preload does, from the window (default) or from elsewhere. */
  async invoke(method: string, args: unknown[] = [], from: { sender?: 'window' | 'foreign'; frameUrl?: string } = {}) {
    return this.command('invoke', { channel: channelOf(method as never), args, ...from });
  }

  trayMenu(): MenuItem[] | undefined {
    return this.messages.findLast((m) => m.type === 'tray-menu')?.menu;
  }

  async waitForStatusLine(line: string): Promise<void> {
    await this.waitFor(`tray status line "${line}"`, (m) => m.type === 'tray-menu' && m.menu[0]?.label === line && m === this.messages.findLast((x) => x.type === 'tray-menu'));
  }

  async exit(timeoutMs: number) {
    return Promise.race([
      this.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the app did not exit within ${timeoutMs} ms; output:\n${this.output.slice(-3000)}`)), timeoutMs)),
    ]);
  }
}

const labels = (items: MenuItem[] | undefined): string[] => (items ?? []).filter((i) => i.type !== 'separator').map((i) => i.label ?? '');

async function answers(url: string): Promise<boolean> {
  try {
    await (await fetch(url, { signal: AbortSignal.timeout(2000) })).arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

// Per-test resources, released in afterEach whatever happened.
let app: AppProcess | undefined;
let fakeCli: FakeCli | undefined;
let blocker: Server | undefined;
const dirs: string[] = [];

/** A settings directory (and HOME) of its own, a desktop that has (or lacks) a tray host, and a quick login shell. */
function appEnv(opts: { settings?: string; trayHost?: boolean; extra?: NodeJS.ProcessEnv } = {}): { env: NodeJS.ProcessEnv; userData: string } {
  const root = mkdtempSync(join(tmpdir(), 'main-smoke-'));
  dirs.push(root);
  const userData = join(root, 'user-data');
  for (const dir of [userData, join(root, 'home'), join(root, 'config')]) mkdirSync(dir, { recursive: true });
  if (opts.settings !== undefined) writeFileSync(join(userData, 'settings.json'), opts.settings);
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    TMPDIR: process.env.TMPDIR,
    LANG: 'C.UTF-8',
    HOME: join(root, 'home'),
    XDG_CONFIG_HOME: join(root, 'config'),
    ASSISTANT_PROXY_USER_DATA: userData,
    // shell-path.ts asks `$SHELL -ilc` for PATH: an empty home makes /bin/sh answer at once.
    SHELL: '/bin/sh',
    // tray-host.ts: a session bus that cannot be reached makes it guess from the desktop name.
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/nonexistent/main-smoke-bus',
    XDG_CURRENT_DESKTOP: opts.trayHost === false ? 'GNOME' : 'KDE',
    ...opts.extra,
  };
  return { env, userData };
}

beforeAll(() => buildIfStale(), 60_000);

afterEach(async () => {
  if (app?.alive) {
    app.child.kill('SIGKILL');
    await app.exited;
  }
  app = undefined;
  await fakeCli?.cleanup();
  fakeCli = undefined;
  if (blocker) await new Promise((r) => blocker!.close(r));
  blocker = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the built main process under a fake electron', () => {
  it('runs the proxy on the stored port, wires window, tray and IPC, and ends everything on Quit', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    fakeCli = await makeFakeCli({ scenario: 'hang', version: '2.9.77' });
    const { env, userData } = appEnv({ settings: JSON.stringify({ port, logLevel: 'warn', cliPath: fakeCli.path }) });
    app = AppProcess.start(env);

    await app.waitForStatusLine(`Running on 127.0.0.1:${port}`);
    await app.waitFor('the IPC handlers', (m) => m.type === 'ipc-handle' && m.channel === channelOf('openLogs'));
    // The settings directory is switched before the single-instance lock (kept in userData) is taken, so two
    // profiles can run side by side.
    expect(app.messages.find((m) => m.type === 'single-instance-lock')).toMatchObject({ userData });

    // The proxy answers on the stored port, and its probe ran the configured CLI.
    expect((await fetch(`${base}/v1/models`)).status).toBe(200);
    await until('the probe reports the fake CLI', async () => ((await (await fetch(`${base}/health/detailed`)).json()) as any).components?.assistant_cli?.version === '2.9.77');

    // The window: locked down, our preload, the page vite builds next to dist/main; shown (not launched --hidden).
    const created = await app.waitFor('the window', (m) => m.type === 'window-created');
    const prefs = created.options.webPreferences;
    expect(prefs).toMatchObject({ contextIsolation: true, nodeIntegration: false, sandbox: true });
    expect(relative(distMain, prefs.preload)).toBe('preload.cjs');
    expect(existsSync(prefs.preload)).toBe(true);
    expect(existsSync(created.options.icon)).toBe(true);
    const load = await app.waitFor('the page load', (m) => m.type === 'window-load');
    expect(load.file).toBe(join(viteConfig.build!.outDir!, 'index.html'));
    await app.waitFor('the window shown', (m) => m.type === 'window-show' && m.id === created.id);

    // The tray: a visible icon and the menu docs/desktop.md lists.
    const tray = await app.waitFor('the tray', (m) => m.type === 'tray-created');
    expect(tray.image.empty).toBe(false);
    expect(labels(app.trayMenu())).toEqual([
      `Running on 127.0.0.1:${port}`,
      'Stop proxy',
      `Copy compat base URL (${base}/compat/v1)`,
      `Copy native base URL (${base}/v1)`,
      'Open window',
      'Diagnose…',
      'Modes',
      'Open at login',
      'Quit Assistant Proxy',
    ]);
    expect(labels(app.trayMenu()!.find((i) => i.label === 'Modes')!.submenu)).toEqual(['Tool (CLI)', 'Direct API', 'Response API']);

    // Every ControlApi channel is handled; only our window's page may call them.
    const handled = app.messages.filter((m) => m.type === 'ipc-handle').map((m) => m.channel);
    expect(handled).toEqual(expect.arrayContaining(controlMethods.map((m) => channelOf(m))));
    const mine = await app.invoke('getStatus');
    expect(mine).toMatchObject({ ok: true, value: { state: 'running', host: '127.0.0.1', port } });
    const foreign = await app.invoke('getStatus', [], { sender: 'foreign' });
    expect(foreign.ok).toBe(false);
    expect(foreign.error).toMatch(/Refused getStatus/);
    const elsewhere = await app.invoke('stop', [], { frameUrl: 'https://elsewhere.example/' });
    expect(elsewhere.ok).toBe(false);
    expect(await answers(`${base}/health`)).toBe(true);
    await until('the refusal is logged', () => app!.output.includes('refused an IPC call from outside the window'));

    // Tray actions: copy a URL, Stop (the port refuses, the window is told), Start (it answers again).
    await app.command('click', { path: ['Copy compat base URL'] });
    await app.waitFor('the clipboard', (m) => m.type === 'clipboard' && m.text === `${base}/compat/v1`);
    expect(await app.command('click', { path: ['Stop proxy'] })).toMatchObject({ ok: true });
    await app.waitForStatusLine('Stopped');
    expect(await answers(`${base}/health`)).toBe(false);
    await app.waitFor('a stopped status pushed to the window', (m) => m.type === 'webcontents-send' && m.channel === statusPushChannel && m.args[0]?.state === 'stopped');
    await app.command('click', { path: ['Start proxy'] });
    await app.waitForStatusLine(`Running on 127.0.0.1:${port}`);
    expect(await answers(`${base}/health`)).toBe(true);

    // A mode switched off in the tray is applied and saved through electron-store.
    await app.command('click', { path: ['Modes', 'Direct API'] });
    await until('the modes are saved', () => JSON.parse(readFileSync(join(userData, 'settings.json'), 'utf8')).modes?.join() === 'tool,respapi');
    expect((await app.invoke('getStatus')).value.modes).toEqual(['tool', 'respapi']);

    // Closing the window while the tray exists only hides it; the tray brings it back.
    expect(await app.command('closeWindow')).toMatchObject({ ok: true, value: { destroyed: false, visible: false } });
    const shownBefore = app.messages.filter((m) => m.type === 'window-show').length;
    await app.command('click', { path: ['Open window'] });
    await until('the window is shown again', () => app!.messages.filter((m) => m.type === 'window-show').length > shownBefore);
    expect(app.alive).toBe(true);

    // A request in flight on a CLI that never answers, then Quit: the proxy ends the CLI child and the app exits 0.
    const model = (((await (await fetch(`${base}/v1/models`)).json()) as any).data[0].id) as string;
    const inFlight = fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    }).then((res) => res.arrayBuffer()).catch(() => undefined);
    await until('the CLI child runs the request', async () => (await fakeCli!.records()).some((r) => r.argv.includes('-p') || r.argv.includes('--print')) && (await fakeCli!.alivePids()).length > 0);

    await app.command('click', { path: ['Quit Assistant Proxy'] });
    expect(await app.exit(10_000)).toEqual({ code: 0, signal: null });
    await inFlight;
    expect(await answers(`${base}/health`)).toBe(false);
    // SIGTERM may still be in flight when the app exits; an orphaned child (never signalled) would stay alive.
    await until('no CLI child is left alive', async () => (await fakeCli!.alivePids()).length === 0, 3000);
    // The proxy was stopped before Electron was allowed to quit: the first before-quit was held back, and the
    // window heard "stopped" before the final quit.
    const types = app.messages.map((m) => (m.type === 'webcontents-send' ? `status:${m.args[0]?.state}` : m.type === 'before-quit' ? `before-quit:${m.prevented}` : m.type));
    const firstQuit = types.indexOf('before-quit:true');
    expect(firstQuit).toBeGreaterThanOrEqual(0);
    expect(types.indexOf('status:stopped', firstQuit)).toBeGreaterThan(firstQuit);
    expect(types.indexOf('quit', firstQuit)).toBeGreaterThan(types.indexOf('status:stopped', firstQuit));
    expect(app.messages.filter((m) => m.type === 'violation')).toEqual([]);
  });

  it('survives an unreadable settings file: kept aside, defaults used, the user told; with no tray host closing the window quits', async () => {
    const defaults = validateSettings({});
    // Hold the default port so the outcome does not depend on what else runs here: the app must report it, not crash.
    blocker = createServer();
    await new Promise<void>((resolve) => {
      blocker!.once('error', () => resolve()).listen(defaults.port, defaults.host, () => resolve());
    });
    const { env, userData } = appEnv({ settings: '{"port": 8123, oops', trayHost: false });
    app = AppProcess.start(env);

    const notice = await app.waitFor('the settings notification', (m) => m.type === 'notification' && m.title === 'Assistant Proxy settings');
    expect(notice.body).toMatch(/could not be read.*defaults are in use/);
    const kept = readdirSync(userData).filter((f) => f.startsWith('settings.json.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(userData, kept[0]), 'utf8')).toBe('{"port": 8123, oops');
    await app.waitFor('the could-not-start notification', (m) => m.type === 'notification' && m.title === 'Assistant Proxy could not start');

    // No tray host: no tray, and the window opens so the user can reach the app.
    await app.waitFor('the window shown', (m) => m.type === 'window-show');
    await app.waitFor('the IPC handlers', (m) => m.type === 'ipc-handle' && m.channel === channelOf('openLogs'));
    expect(app.messages.some((m) => m.type === 'tray-created')).toBe(false);

    const status = (await app.invoke('getStatus')).value;
    expect(status).toMatchObject({ state: 'error', host: defaults.host, port: defaults.port });
    expect(status.notices.join('\n')).toMatch(/could not be read/);
    expect((await app.invoke('getSettings')).value).toMatchObject({ port: defaults.port, host: defaults.host, modes: defaults.modes });

    await app.command('closeWindow');
    expect(await app.exit(10_000)).toEqual({ code: 0, signal: null });
    expect(app.messages.filter((m) => m.type === 'violation')).toEqual([]);
  });

  it('starts hidden in the tray with --hidden, and quits cleanly on SIGTERM', async () => {
    const port = await freePort();
    fakeCli = await makeFakeCli({});
    const { env } = appEnv({ settings: JSON.stringify({ port, logLevel: 'silent', cliPath: fakeCli.path }) });
    app = AppProcess.start(env, ['--hidden']);
    await app.waitForStatusLine(`Running on 127.0.0.1:${port}`);
    await app.waitFor('the IPC handlers', (m) => m.type === 'ipc-handle' && m.channel === channelOf('openLogs'));
    expect(await answers(`http://127.0.0.1:${port}/health`)).toBe(true);
    expect(app.messages.some((m) => m.type === 'window-created')).toBe(false);

    app.child.kill('SIGTERM');
    expect(await app.exit(10_000)).toEqual({ code: 0, signal: null });
    expect(app.messages.find((m) => m.type === 'before-quit')).toMatchObject({ prevented: true });
    expect(await answers(`http://127.0.0.1:${port}/health`)).toBe(false);
  });

  it('a second launch quits at once without starting a proxy or a window', async () => {
    const port = await freePort();
    const { env } = appEnv({ settings: JSON.stringify({ port, logLevel: 'silent' }), extra: { FAKE_ELECTRON_SINGLE_INSTANCE_LOCK: '0' } });
    app = AppProcess.start(env);
    expect(await app.exit(10_000)).toEqual({ code: 0, signal: null });
    expect(app.messages.map((m) => m.type).filter((t) => ['window-created', 'tray-created', 'ipc-handle', 'notification'].includes(t))).toEqual([]);
    expect(await answers(`http://127.0.0.1:${port}/health`)).toBe(false);
  });
});
