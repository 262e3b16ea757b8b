import { describe, expect, it, afterEach } from 'vitest';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { createControlService } from './control-service.js';
import { ProxyController } from '../proxy/controller.js';

// A closed local port as the provider: the catalog's read at start never leaves this machine (docs/testing.md).
const noProvider = 'http://127.0.0.1:9';

describe('control service over a real controller', () => {
  let controller: ProxyController | undefined;
  let blocker: Server | undefined;
  afterEach(async () => {
    await controller?.stop(100);
    blocker?.close();
  });

  it('refuses settings the window may not change, without touching the controller', async () => {
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' },
    });
    const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    const result = await api.updateSettings({ credentialsPath: '/etc/shadow' } as never);
    expect(result).toMatchObject({
      ok: false,
      errors: { credentialsPath: expect.stringContaining('cannot be changed from the window') },
    });
    expect(controller.getSettings().credentialsPath).not.toBe('/etc/shadow');
  });

  it('checks the port range before binding, and reports a failed start as a status, not an exception', async () => {
    blocker = createServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as AddressInfo).port;
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: taken, logLevel: 'silent', cliPath: '/nonexistent/cli' },
    });
    const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    expect(await api.checkPort(70000)).toEqual({ free: false, message: 'Choose a port from 1 to 65535' });
    expect(await api.checkPort(taken)).toMatchObject({ free: false });
    const status = await api.start();
    expect(status).toMatchObject({ state: 'error', error: expect.stringContaining(`Port ${taken} already in use`) });
    expect(status.attention[0]).toContain('already in use');
    expect(await api.getMetrics()).toMatchObject({ requestsTotal: 0, series: [] });
  });

  it('an Apply with nothing effective changed does not restart the server', async () => {
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' },
    });
    await controller.start();
    const before = controller.current();
    const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    expect((await api.updateSettings({ logLevel: 'silent' })).ok).toBe(true);
    expect(controller.current()).toBe(before);
  });

  it('opens the log file through the shell, and says why not when there is none', async () => {
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' },
    });
    const opened: string[] = [];
    const api = createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      logPath: '/tmp/app/logs/assistant-proxy.log',
      openPath: async (path) => (opened.push(path), ''),
    });
    expect(await api.openLogs()).toEqual({ path: '/tmp/app/logs/assistant-proxy.log' });
    expect(opened).toEqual(['/tmp/app/logs/assistant-proxy.log']);
    const failing = createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      logPath: '/x.log',
      openPath: async () => 'No application',
    });
    expect(await failing.openLogs()).toEqual({ path: '/x.log', error: 'No application' });
    const headless = createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
    });
    expect((await headless.openLogs()).error).toMatch(/terminal/);
  });

  it('applies a log-level change to the running proxy', async () => {
    const { Writable } = await import('node:stream');
    const { createLogger } = await import('../proxy/logger.js');
    let text = '';
    const sink = new Writable({ write: (c, _e, cb) => ((text += c.toString()), cb()) });
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'warn', cliPath: '/nonexistent/cli' },
      logger: createLogger('warn', sink),
    });
    await controller.start();
    const url = () => `http://127.0.0.1:${controller!.current()!.port}`;
    await fetch(`${url()}/v1/models`, { headers: { 'x-request-id': 'quiet-1' } });
    expect(text).not.toContain('quiet-1');
    expect((await controller.updateSettings({ logLevel: 'info' })).ok).toBe(true);
    await fetch(`${url()}/v1/models`, { headers: { 'x-request-id': 'loud-1' } });
    await expect.poll(() => text.includes('loud-1')).toBe(true);
  });
});

describe('control service: live log, diagnose, usage', () => {
  let controller: ProxyController | undefined;
  afterEach(async () => {
    await controller?.stop(100);
  });

  it('serves the log tap from a sequence number, with the level in force', async () => {
    const { LogTap, createLogger } = await import('../proxy/logger.js');
    const { Writable } = await import('node:stream');
    const tap = new LogTap(50);
    const logger = createLogger('info', new Writable({ write: (_c, _e, done) => done() }), tap);
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'info', cliPath: '/nonexistent/cli' },
      logger,
    });
    const api = createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      logTap: tap,
    });
    logger.info({ requestId: 'req_a' }, 'first');
    logger.warn('second');
    await new Promise((r) => setTimeout(r, 20));
    const page = await api.getLogs(0);
    expect(page.level).toBe('info');
    expect(page.lines.map((l) => l.msg)).toEqual(['first', 'second']);
    expect((await api.getLogs(page.lines[0].seq)).lines.map((l) => l.msg)).toEqual(['second']);
    // Without a tap (headless), an empty page rather than an error.
    const bare = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    expect(await bare.getLogs(0)).toEqual({ lines: [], nextSeq: 0, missed: 0, level: 'info' });
  });

  it('says plainly when no usage ledger runs, and answers limits as "none observed"', async () => {
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' },
    });
    const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
    await expect(api.getUsageSummary(0, Date.now(), 'model')).rejects.toThrow('The usage ledger is not running');
    expect(await api.getLimits()).toEqual([]);
    await expect(api.getUsageSummary(10, 5, 'model')).rejects.toThrow('from <= to');
  });

  it('exports the history between two times as CSV (to the chosen file, or as text without a dialog)', async () => {
    const { FakeUsageReader, sampleRecords } = await import('../../test/main/usage-fixture.js');
    const now = Date.now();
    const records = sampleRecords(now, 3000);
    const usage = new FakeUsageReader(records);
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'silent', cliPath: '/nonexistent/cli' },
    });
    const from = now - 7 * 86_400_000;
    const inRange = records.filter((r) => r.startedAt >= from && r.startedAt <= now);
    const text = await createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      usage,
    }).exportUsageCsv(from, now);
    expect(text.rows).toBe(inRange.length);
    const lines = text.csv!.trim().split('\r\n');
    expect(lines).toHaveLength(inRange.length + 1);
    expect(lines[0]).toMatch(/^started_at,request_id,mode,/);
    // Oldest first, every request id once.
    expect(new Set(lines.slice(1).map((l) => l.split(',')[1]))).toEqual(new Set(inRange.map((r) => r.requestId)));
    const saved: Array<[string, string]> = [];
    const api = createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      usage,
      saveCsv: async (name, csv) => (saved.push([name, csv]), `/tmp/${name}`),
    });
    const result = await api.exportUsageCsv(from, now);
    expect(result).toEqual({
      rows: inRange.length,
      path: expect.stringMatching(/^\/tmp\/assistant-proxy-usage-\d{4}-\d\d-\d\d-to-\d{4}-\d\d-\d\d\.csv$/),
    });
    expect(saved[0][1]).toBe(text.csv);
    const cancelled = createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      usage,
      saveCsv: async () => undefined,
    });
    expect(await cancelled.exportUsageCsv(from, now)).toEqual({ rows: inRange.length });
  });
});

describe('control service: recent requests', () => {
  let controller: ProxyController | undefined;
  afterEach(async () => {
    await controller?.stop(100);
  });

  it('a request that matched no route carries its path (from the log tap, else from the ledger)', async () => {
    const { LogTap, createLogger } = await import('../proxy/logger.js');
    const { Writable } = await import('node:stream');
    const tap = new LogTap(50);
    const logger = createLogger('info', new Writable({ write: (_c, _e, done) => done() }), tap);
    controller = new ProxyController({
      settings: { apiBaseUrl: noProvider, port: 0, logLevel: 'info', cliPath: '/nonexistent/cli' },
      logger,
    });
    await controller.start();
    const port = controller.current()!.port!;
    expect((await fetch(`http://127.0.0.1:${port}/no/such/path`)).status).toBe(404);
    await new Promise((r) => setTimeout(r, 50));
    const fromTap = await createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      logTap: tap,
    }).getRecentRequests();
    expect(fromTap.find((r) => r.route === 'unmatched')?.path).toBe('/no/such/path');
    const id = fromTap.find((r) => r.route === 'unmatched')!.requestId;
    const { FakeUsageReader, sampleRecords } = await import('../../test/main/usage-fixture.js');
    const reader = new FakeUsageReader([{ ...sampleRecords(Date.now(), 1)[0], requestId: id, route: '/no/such/path' }]);
    const fromLedger = await createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
      usage: reader,
    }).getRecentRequests();
    expect(fromLedger.find((r) => r.requestId === id)?.path).toBe('/no/such/path');
    const bare = await createControlService(controller, {
      copyText: () => undefined,
      pickCliPath: async () => undefined,
    }).getRecentRequests();
    expect(bare.find((r) => r.requestId === id)?.path).toBeUndefined();
  });
});

describe("control service: diagnose through a proxy that requires the owner's key", () => {
  let controller: ProxyController | undefined;
  afterEach(async () => {
    await controller?.stop(100);
  });

  it("sends the running proxy's key, so REQUIRE_ACCESS_KEY does not fail its checks", async () => {
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const { join } = await import('node:path');
    const { startSimulator, writeCliCredentials } = await import('../../test/simulator/index.js');
    const { makeFakeCli } = await import('../../test/fixtures/fake-cli.js');
    const dir = await mkdtemp(join(tmpdir(), 'diagnose-key-'));
    const sim = await startSimulator();
    const fake = await makeFakeCli({ reply: 'OK' });
    try {
      const credentialsPath = await writeCliCredentials(join(dir, 'cli'), {
        accessToken: 'sk-ant-oat01-diag',
        refreshToken: 'sk-ant-ort01-diag',
        expiresAt: Date.now() + 3_600_000,
      });
      controller = new ProxyController({
        settings: {
          port: 0,
          logLevel: 'silent',
          modes: ['direct'],
          requireAccessKey: true,
          cliPath: fake.path,
          apiBaseUrl: sim.url,
          credentialsPath,
          oauthTokenUrl: sim.cliTokenUrl,
          dataDir: join(dir, 'data'),
        },
        ownerKey: 'control-owner-key-0123456789',
      });
      await controller.start();
      const api = createControlService(controller, { copyText: () => undefined, pickCliPath: async () => undefined });
      const { report } = await api.diagnose();
      expect(report.checks.find((c) => c.id === 'direct-models')?.status).toBe('pass');
    } finally {
      await fake.cleanup();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
