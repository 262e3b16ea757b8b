import { describe, expect, it, afterEach } from 'vitest';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { createControlService } from '../../src/main/control-service.js';
import { ProxyController } from '../../src/proxy/controller.js';

describe('control service over a real controller', () => {
  let controller: ProxyController | undefined;
  let blocker: Server | undefined;
  afterEach(async () => {
    await controller?.stop(100);
    blocker?.close();
  });

  it('refuses settings the window may not change, without touching the controller', async () => {
    controller = new ProxyController({ settings: { port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' } });
    const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    const result = await api.updateSettings({ credentialsPath: '/etc/shadow' } as never);
    expect(result).toMatchObject({ ok: false, errors: { credentialsPath: expect.stringContaining('cannot be changed from the window') } });
    expect(controller.getSettings().credentialsPath).not.toBe('/etc/shadow');
  });

  it('checks the port range before binding, and reports a failed start as a status, not an exception', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as AddressInfo).port;
    controller = new ProxyController({ settings: { port: taken, logLevel: 'silent', cliPath: '/nonexistent/cli' } });
    const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    expect(await api.checkPort(70000)).toEqual({ free: false, message: 'Choose a port from 1 to 65535' });
    expect(await api.checkPort(taken)).toMatchObject({ free: false });
    const status = await api.start();
    expect(status).toMatchObject({ state: 'error', error: expect.stringContaining(`Port ${taken} already in use`) });
    expect(status.attention[0]).toContain('already in use');
    expect(await api.getMetrics()).toMatchObject({ requestsTotal: 0, series: [] });
  });

  it('an Apply with nothing effective changed does not restart the server', async () => {
    controller = new ProxyController({ settings: { port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' } });
    await controller.start();
    const before = controller.current();
    const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    expect((await api.updateSettings({ logLevel: 'silent' })).ok).toBe(true);
    expect(controller.current()).toBe(before);
  });

  it('opens the log file through the shell, and says why not when there is none', async () => {
    controller = new ProxyController({ settings: { port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' } });
    const opened: string[] = [];
    const api = createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      logPath: '/tmp/app/logs/assistant-proxy.log',
      openPath: async (path) => (opened.push(path), ''),
    });
    expect(await api.openLogs()).toEqual({ path: '/tmp/app/logs/assistant-proxy.log' });
    expect(opened).toEqual(['/tmp/app/logs/assistant-proxy.log']);
    const failing = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined, logPath: '/x.log', openPath: async () => 'No application' });
    expect(await failing.openLogs()).toEqual({ path: '/x.log', error: 'No application' });
    const headless = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    expect((await headless.openLogs()).error).toMatch(/terminal/);
  });

  it('applies a log-level change to the running proxy', async () => {
    const { Writable } = await import('node:stream');
    const { createLogger } = await import('../../src/proxy/logger.js');
    let text = '';
    const sink = new Writable({ write: (c, _e, cb) => ((text += c.toString()), cb()) });
    controller = new ProxyController({ settings: { port: 0, logLevel: 'warn', cliPath: '/nonexistent/cli' }, logger: createLogger('warn', sink) });
    await controller.start();
    const url = () => `http://127.0.0.1:${controller!.current()!.services.boundPort}`;
    await fetch(`${url()}/v1/models`, { headers: { 'x-request-id': 'quiet-1' } });
    expect(text).not.toContain('quiet-1');
    expect((await controller.updateSettings({ logLevel: 'info' })).ok).toBe(true);
    await fetch(`${url()}/v1/models`, { headers: { 'x-request-id': 'loud-1' } });
    await expect.poll(() => text.includes('loud-1')).toBe(true);
  });
});
