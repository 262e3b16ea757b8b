// startApp (src/main/start-app.ts) driven with a small fake of Electron (fake-electron.ts), in this process: the
// settings → profile → ledger → proxy → window → tray → IPC → login watcher wiring, the composition it shares
// with the headless proxy (ASSISTANT_PROFILE_FILE, the ledger with the profile's quota names, the data directory
// in the app's user-data folder: docs/usage.md "Where"), and the quit sequence (docs/desktop.md).

import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { channelOf, controlMethods, statusPushChannel } from './ipc.js';
import type { AppHost } from './app-host.js';
import { startApp, type RunningApp } from './start-app.js';
import { validateSettings } from '../proxy/config.js';
import { makeFakeCli, type FakeCli } from '../../test/fixtures/fake-cli.js';
import { freePort } from '../../test/helpers/free-port.js';
import viteConfig from '../../vite.config.js';
import { fakeElectron, JsonFileStore, type MenuItem } from '../../test/main/fake-electron.js';

const repo = fileURLToPath(new URL('../../', import.meta.url));

let fake: ReturnType<typeof fakeElectron> | undefined;
let running: RunningApp | undefined;
let fakeCli: FakeCli | undefined;
let blocker: Server | undefined;
const signals = new Map<string, () => void>();
const dirs: string[] = [];

function setup(
  opts: {
    settings?: string;
    trayHost?: boolean;
    argv?: string[];
    platform?: NodeJS.Platform;
    singleInstance?: boolean;
    wasOpenedAtLogin?: boolean;
    env?: NodeJS.ProcessEnv;
  } = {},
) {
  const root = mkdtempSync(join(tmpdir(), 'start-app-'));
  dirs.push(root);
  const userData = join(root, 'user-data');
  mkdirSync(userData, { recursive: true });
  if (opts.settings !== undefined) writeFileSync(join(userData, 'settings.json'), opts.settings);
  fake = fakeElectron({
    appPath: repo,
    userData: join(root, 'default-user-data'),
    singleInstance: opts.singleInstance,
    wasOpenedAtLogin: opts.wasOpenedAtLogin,
  });
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: join(root, 'home'),
    XDG_CONFIG_HOME: join(root, 'config'),
    LOG_LEVEL: 'silent',
    ASSISTANT_PROXY_USER_DATA: userData,
    ...opts.env,
  };
  const host: Partial<AppHost> = {
    argv: opts.argv ?? ['electron'],
    platform: opts.platform ?? 'linux',
    execPath: '/opt/Assistant Proxy/assistant-proxy',
    defaultApp: false,
    loadStore: async () => (cwd) => new JsonFileStore(join(cwd, 'settings.json')),
    loginShellPath: async (e) => ({ path: e.PATH ?? '', source: 'inherited' }),
    hasTrayHost: async () => opts.trayHost ?? true,
    onSignal: (signal, fn) => void signals.set(signal, fn),
  };
  running = startApp(fake.electron, env, host);
  return { fake, running, userData, env };
}

const labels = (items: MenuItem[] | undefined): string[] =>
  (items ?? []).filter((i) => i.type !== 'separator').map((i) => i.label ?? '');

async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    await (await fetch(url, { signal: AbortSignal.timeout(2000) })).arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

afterEach(async () => {
  if (fake && !fake.quit) {
    fake.electron.app.quit();
    await until('the app quit', () => fake!.quit).catch(() => undefined);
  }
  fake = undefined;
  running = undefined;
  signals.clear();
  await fakeCli?.cleanup();
  fakeCli = undefined;
  if (blocker) await new Promise((r) => blocker!.close(r));
  blocker = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('startApp under a fake Electron', () => {
  it('runs the proxy on the stored port, wires window, tray and IPC, and ends everything on Quit', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    fakeCli = await makeFakeCli({ scenario: 'hang', version: '2.9.77' });
    const { fake, running, userData } = setup({
      settings: JSON.stringify({ port, logLevel: 'warn', cliPath: fakeCli.path }),
    });
    await running.ready;

    // The settings directory is switched before the single-instance lock (kept in userData).
    expect(fake.events.find((e) => e.type === 'single-instance-lock')).toMatchObject({ userData });
    expect(running.controller()!.status()).toMatchObject({ state: 'running', host: '127.0.0.1', port });
    expect((await fetch(`${base}/v1/models`)).status).toBe(200);
    await until(
      'the probe reports the fake CLI',
      async () =>
        ((await (await fetch(`${base}/health/detailed`)).json()) as any).components?.assistant_cli?.version ===
        '2.9.77',
    );

    // The window: locked down, the preload and the page next to the built main process (dist/main/../renderer is
    // where vite builds the page).
    const created = fake.events.find((e) => e.type === 'window-created')!;
    expect(created.options.webPreferences).toMatchObject({
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
    });
    const mainDir = join(repo, 'src', 'main');
    expect(created.options.webPreferences.preload).toBe(join(mainDir, 'preload.cjs'));
    expect(fake.events.find((e) => e.type === 'window-load')!.file).toBe(join(mainDir, '..', 'renderer', 'index.html'));
    expect(join(repo, 'dist', 'renderer')).toBe(viteConfig.build!.outDir);
    expect(created.options.icon).toBe(join(repo, 'assets', 'icons', '512x512.png'));
    await until('the window is shown', () => fake.events.some((e) => e.type === 'window-show'));

    // The tray: a real icon file and the menu docs/desktop.md lists.
    const tray = fake.events.find((e) => e.type === 'tray-created')!;
    expect(tray.image.empty).toBe(false);
    expect(labels(fake.trayMenu())).toEqual([
      `Running on 127.0.0.1:${port}`,
      'Stop proxy',
      `Copy OpenAI SDK base URL (${base}/compat/v1)`,
      // The native SDK adds /v1 itself.
      `Copy native SDK base URL (${base})`,
      'Open window',
      'Diagnose…',
      'Modes',
      'Open at login',
      'Quit Assistant Proxy',
    ]);

    // Every ControlApi channel is handled; only our window's page may call them.
    expect(fake.handled()).toEqual(expect.arrayContaining(controlMethods.map((m) => channelOf(m))));
    expect(await fake.invoke(channelOf('getStatus'))).toMatchObject({ state: 'running', port });
    await expect(fake.invoke(channelOf('getStatus'), [], { sender: 'foreign' })).rejects.toThrow(/Refused getStatus/);
    await expect(fake.invoke(channelOf('stop'), [], { frameUrl: 'https://elsewhere.example/' })).rejects.toThrow(
      /Refused stop/,
    );
    expect(await answers(`${base}/health`)).toBe(true);

    // Tray actions: copy a URL, Stop (the port refuses, the window is told), Start (it answers again).
    fake.click(['Copy OpenAI SDK base URL']);
    await until('the clipboard', () =>
      fake.events.some((e) => e.type === 'clipboard' && e.text === `${base}/compat/v1`),
    );
    fake.click(['Copy native SDK base URL']);
    await until('the clipboard', () => fake.events.some((e) => e.type === 'clipboard' && e.text === base));
    fake.click(['Stop proxy']);
    await until('stopped', () => labels(fake.trayMenu())[0] === 'Stopped');
    expect(await answers(`${base}/health`)).toBe(false);
    expect(
      fake.events.some(
        (e) => e.type === 'webcontents-send' && e.channel === statusPushChannel && e.args[0]?.state === 'stopped',
      ),
    ).toBe(true);
    fake.click(['Start proxy']);
    await until('running again', () => labels(fake.trayMenu())[0] === `Running on 127.0.0.1:${port}`);

    // A mode switched off in the tray is applied and saved; the data directory default is not written into it.
    fake.click(['Modes', 'Direct API']);
    await until(
      'the modes are saved',
      () => JSON.parse(readFileSync(join(userData, 'settings.json'), 'utf8')).modes?.join() === 'tool,respapi',
    );
    expect(JSON.parse(readFileSync(join(userData, 'settings.json'), 'utf8'))).not.toHaveProperty('dataDir');

    // Open at login (Linux): an autostart entry that starts the app hidden.
    fake.click(['Open at login']);
    expect(readFileSync(join(dirs[0], 'config', 'autostart', 'assistant-proxy.desktop'), 'utf8')).toContain(
      'Exec="/opt/Assistant Proxy/assistant-proxy" --hidden',
    );

    // Closing the window while the tray exists only hides it.
    const win = fake.windows()[0];
    win.close();
    expect(win.destroyed).toBe(false);
    expect(win.visible).toBe(false);

    // The ledger is in the app's user-data folder (docs/usage.md "Where") and records what the proxy carried.
    expect(
      (
        await fetch(`${base}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(400);
    expect(readdirSync(userData)).toContain('usage.db');
    expect(running.usage()!.path).toBe(join(userData, 'usage.db'));
    await until(
      'the request is in the ledger',
      () =>
        running
          .usage()!
          .requests()
          .rows.some((r) => r.route === '/v1/messages' && r.outcome === 'rejected'),
      3000,
    );

    // A request in flight on a CLI that never answers, then Quit: the proxy ends the CLI child before Electron quits.
    const model = ((await (await fetch(`${base}/v1/models`)).json()) as any).data[0].id as string;
    const inFlight = fetch(`${base}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 32, stream: true, messages: [{ role: 'user', content: 'hello' }] }),
    })
      .then((res) => res.arrayBuffer())
      .catch(() => undefined);
    await until(
      'the CLI child runs the request',
      async () =>
        (await fakeCli!.records()).some((r) => r.argv.includes('-p') || r.argv.includes('--print')) &&
        (await fakeCli!.alivePids()).length > 0,
    );
    fake.click(['Quit Assistant Proxy']);
    await until('the app quit', () => fake.quit);
    await inFlight;
    expect(await answers(`${base}/health`)).toBe(false);
    await until('no CLI child is left alive', async () => (await fakeCli!.alivePids()).length === 0, 3000);
    // The first before-quit was held back until the proxy stopped and the window heard it.
    const order = fake.events.map((e) =>
      e.type === 'webcontents-send'
        ? `status:${e.args[0]?.state}`
        : e.type === 'before-quit'
          ? `before-quit:${e.prevented}`
          : e.type,
    );
    const firstQuit = order.indexOf('before-quit:true');
    expect(firstQuit).toBeGreaterThanOrEqual(0);
    expect(order.indexOf('status:stopped', firstQuit)).toBeGreaterThan(firstQuit);
    expect(order.indexOf('quit', firstQuit)).toBeGreaterThan(order.indexOf('status:stopped', firstQuit));
    expect(fake.events.filter((e) => e.type === 'violation')).toEqual([]);
  });

  it('loads ASSISTANT_PROFILE_FILE like the headless proxy: the ledger reads quota headers under the profile names', async () => {
    const port = await freePort();
    const root = mkdtempSync(join(tmpdir(), 'start-app-profile-'));
    dirs.push(root);
    const profileFile = join(root, 'profile.json');
    writeFileSync(
      profileFile,
      JSON.stringify({ providerName: 'Example Provider', quota: { providerPrefix: 'x-example-limit' } }),
    );
    const { running } = setup({
      settings: JSON.stringify({ port, logLevel: 'silent' }),
      env: { ASSISTANT_PROFILE_FILE: profileFile },
    });
    await running.ready;
    expect(running.controller()!.status().sdk.providerName).toBe('Example Provider');
    const ledger = running.usage()!;
    ledger.upstreamHeaders('direct', {
      'x-example-limit-5h-utilization': '0.25',
      'x-example-limit-5h-reset': '1795000000',
    });
    expect(ledger.quotaWindows()).toEqual([
      expect.objectContaining({ source: 'direct', utilization: 0.25, resetsAt: 1_795_000_000 }),
    ]);
  });

  it('a data directory the user chose wins over the user-data folder', async () => {
    const port = await freePort();
    const root = mkdtempSync(join(tmpdir(), 'start-app-data-'));
    dirs.push(root);
    const { running } = setup({ settings: JSON.stringify({ port, logLevel: 'silent', dataDir: join(root, 'mine') }) });
    await running.ready;
    expect(running.usage()!.path).toBe(join(root, 'mine', 'usage.db'));
    // The CLI's working directory follows the chosen data directory, as it does headless (docs/configuration.md).
    expect(dirname(running.controller()!.getConfig().cliWorkDir)).toBe(join(root, 'mine'));
  });

  it('survives an unreadable settings file: kept aside, defaults used, the user told; with no tray host closing the window quits', async () => {
    const defaults = validateSettings({});
    // Hold the default port so the outcome does not depend on what else runs here: the app must report it, not crash.
    blocker = createServer();
    await new Promise<void>((resolve) => {
      blocker!.once('error', () => resolve()).listen(defaults.port, defaults.host, () => resolve());
    });
    const { fake, running, userData } = setup({ settings: '{"port": 8123, oops', trayHost: false });
    await running.ready;
    const notice = fake.events.find((e) => e.type === 'notification' && e.title === 'Assistant Proxy settings')!;
    expect(notice.body).toMatch(/could not be read.*defaults are in use/);
    const kept = readdirSync(userData).filter((f) => f.startsWith('settings.json.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(readFileSync(join(userData, kept[0]), 'utf8')).toBe('{"port": 8123, oops');
    expect(fake.events.some((e) => e.type === 'notification' && e.title === 'Assistant Proxy could not start')).toBe(
      true,
    );
    expect(fake.events.some((e) => e.type === 'tray-created')).toBe(false);
    await until('the window is shown', () => fake.events.some((e) => e.type === 'window-show'));
    const status = (await fake.invoke(channelOf('getStatus'))) as any;
    expect(status).toMatchObject({ state: 'error', host: defaults.host, port: defaults.port });
    expect(status.notices.join('\n')).toMatch(/could not be read/);

    fake.windows()[0].close();
    await until('the app quit', () => fake.quit);
    expect(fake.events.filter((e) => e.type === 'violation')).toEqual([]);
  });

  it('starts hidden in the tray when launched at login (--hidden), and quits cleanly on SIGTERM', async () => {
    const port = await freePort();
    const { fake, running } = setup({
      settings: JSON.stringify({ port, logLevel: 'silent' }),
      argv: ['assistant-proxy', '--hidden'],
    });
    await running.ready;
    expect(await answers(`http://127.0.0.1:${port}/health`)).toBe(true);
    expect(fake.events.some((e) => e.type === 'window-created' || e.type === 'window-show')).toBe(false);
    signals.get('SIGTERM')!();
    await until('the app quit', () => fake.quit);
    expect(fake.events.find((e) => e.type === 'before-quit')).toMatchObject({ prevented: true });
    expect(await answers(`http://127.0.0.1:${port}/health`)).toBe(false);
  });

  it('macOS: a login-item launch (wasOpenedAtLogin, no arguments) starts hidden; an ordinary one shows the window', async () => {
    const hidden = setup({
      settings: JSON.stringify({ port: await freePort(), logLevel: 'silent' }),
      platform: 'darwin',
      wasOpenedAtLogin: true,
    });
    await hidden.running.ready;
    expect(hidden.fake.events.some((e) => e.type === 'window-created' || e.type === 'window-show')).toBe(false);
    // The menu-bar icon is the template image macOS tints itself.
    expect(hidden.fake.events.find((e) => e.type === 'tray-created')!.image.path).toMatch(/Template\.png$/);
    hidden.fake.electron.app.quit();
    await until('the app quit', () => hidden.fake.quit);

    const shown = setup({
      settings: JSON.stringify({ port: await freePort(), logLevel: 'silent' }),
      platform: 'darwin',
    });
    await shown.running.ready;
    await until('the window is shown', () => shown.fake.events.some((e) => e.type === 'window-show'));
  });

  it('a second launch quits at once without starting a proxy or a window', async () => {
    const port = await freePort();
    const { fake, running } = setup({ settings: JSON.stringify({ port, logLevel: 'silent' }), singleInstance: false });
    await running.ready;
    expect(fake.quit).toBe(true);
    expect(running.controller()).toBeUndefined();
    expect(
      fake.events.map((e) => e.type).filter((t) => ['window-created', 'tray-created', 'notification'].includes(t)),
    ).toEqual([]);
    expect(fake.handled()).toEqual([]);
    expect(await answers(`http://127.0.0.1:${port}/health`)).toBe(false);
  });
});
