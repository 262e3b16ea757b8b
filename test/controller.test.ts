// ProxyController: the desktop app's handle on the proxy. Settings changes restart the server; a change that
// cannot start rolls back and keeps the working proxy.

import { get } from 'node:http';
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyController } from '../src/proxy/controller.js';
import { createLogger } from '../src/proxy/logger.js';
import { freePort } from './helpers/free-port.js';

// A closed local port as the provider: the catalog's read at start never leaves this machine (docs/testing.md).
const noProvider = 'http://127.0.0.1:9';

let controller: ProxyController | undefined;
let blocker: Server | undefined;
afterEach(async () => {
  await controller?.stop();
  blocker?.close();
  controller = undefined;
  blocker = undefined;
});

const quiet = createLogger('silent');

describe('ProxyController', () => {
  it('tells the window when clients are being rate limited, and how to raise the limit', async () => {
    const port = await freePort();
    controller = new ProxyController({
      settings: { port, modes: ['direct'], rateLimitPerMinute: 1, rateLimitBurst: 0 },
      logger: quiet,
    });
    await controller.start();
    expect(controller.status().attention.join(' ')).not.toMatch(/rate limited/);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(200);
    // From another loopback address: the same client (the whole loopback range shares one budget).
    const refused = await new Promise<number>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: '/', localAddress: '127.0.0.2' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(refused).toBe(429);
    const attention = controller.status().attention.join(' ');
    expect(attention).toMatch(/rate limited/);
    expect(attention).toContain('RATE_LIMIT_PER_MINUTE');
  });

  it('starts, reports running with base URL, stops', async () => {
    const port = await freePort();
    const persisted: unknown[] = [];
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port, cliPath: '/nonexistent/cli' },
      logger: quiet,
      persist: (s) => void persisted.push(s),
    });
    const events: string[] = [];
    controller.on('status', (s: { state: string }) => events.push(s.state));
    const status = await controller.start();
    expect(status).toMatchObject({ state: 'running', host: '127.0.0.1', port });
    expect(status.attention.join(' ')).toMatch(/CLI not found/);
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(200);
    const stopped = await controller.stop();
    expect(stopped.state).toBe('stopped');
    await expect(fetch(`http://127.0.0.1:${port}/v1/models`)).rejects.toThrow();
    expect(events).toEqual(['starting', 'running', 'stopping', 'stopped']);
  });

  it('moves to a new port on a settings change and persists it', async () => {
    const [a, b] = [await freePort(), await freePort()];
    const persisted: Array<Record<string, unknown>> = [];
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: a },
      logger: quiet,
      persist: (s) => void persisted.push(s),
    });
    await controller.start();
    const result = await controller.updateSettings({ port: b });
    expect(result.ok).toBe(true);
    expect(result.status?.port).toBe(b);
    expect((await fetch(`http://127.0.0.1:${b}/v1/models`)).status).toBe(200);
    await expect(fetch(`http://127.0.0.1:${a}/v1/models`)).rejects.toThrow();
    expect(persisted.at(-1)).toMatchObject({ port: b });
  });

  it('rejects an invalid setting inline without touching the running server', async () => {
    const port = await freePort();
    controller = new ProxyController({ settings: { apiBaseUrl: noProvider, port }, logger: quiet });
    await controller.start();
    const result = await controller.updateSettings({ port: 70000 });
    expect(result.ok).toBe(false);
    expect(result.errors?.port).toMatch(/PORT.*0 to 65535/);
    expect(controller.status().state).toBe('running');
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(200);
  });

  it('keeps the old port when the new one is taken', async () => {
    const port = await freePort();
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as { port: number }).port;
    controller = new ProxyController({ settings: { apiBaseUrl: noProvider, port }, logger: quiet });
    await controller.start();
    expect(await controller.checkPort(taken)).toMatchObject({
      free: false,
      message: expect.stringContaining(`Port ${taken} already in use`),
    });
    const result = await controller.updateSettings({ port: taken });
    expect(result.ok).toBe(false);
    expect(result.errors?.port).toContain(`Port ${taken} already in use`);
    expect(result.message).toMatch(/previous settings were kept/);
    expect(controller.status()).toMatchObject({ state: 'running', port });
    expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(200);
  });

  it('reports a start failure as an error state with the message', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', () => r()));
    const taken = (blocker.address() as { port: number }).port;
    controller = new ProxyController({ settings: { apiBaseUrl: noProvider, port: taken }, logger: quiet });
    await expect(controller.start()).rejects.toThrow(/already in use/);
    expect(controller.status()).toMatchObject({ state: 'error', error: expect.stringContaining(`Port ${taken}`) });
  });
});
