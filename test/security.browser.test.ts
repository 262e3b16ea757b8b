// A hostile web page against the proxy, in real Chromium (docs/security.md "A web page in the user's browser"). The
// page is served from a second origin on 127.0.0.1 (another OS-chosen port), and once more from
// http://localhost:<port>, which is same-site with the proxy yet another origin. It does what any page can do without
// reading answers: images, 80 no-cors POSTs, a form post, a beacon, a preflighted fetch, WebSockets (the Responses
// socket of each mode included), reads of usage data. None of it may reach the provider (no call, no token refresh) or
// the CLI, write a ledger row, or lock local clients out of the rate limit they share. Then DNS rebinding: the page's
// own name resolved to 127.0.0.1 by a host-resolver rule, so its same-origin requests land on the proxy with Host:
// evil.test. Skips, saying why, only without Chromium.

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/proxy/logger.js';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const chromiumPath = '/usr/bin/chromium';
const haveChromium = existsSync(chromiumPath);
if (!haveChromium)
  console.warn(`[security.browser.test] skipped: ${chromiumPath} is not installed (apt-get install -y chromium)`);

const chat = JSON.stringify({
  model: 'assistant-sonnet-4-20250514',
  max_tokens: 16,
  messages: [{ role: 'user', content: 'spend the owner quota' }],
});

/** The attack page: everything a page may send to `target` without being allowed to read the answers. */
function attackPage(target: string): string {
  const ws = target.replace(/^http/, 'ws');
  return `<!doctype html><html><body>
<img src="${target}/api/v1/models"><img src="${target}/api/models"><img src="${target}/v1/models">
<iframe name="sink" id="sink"></iframe>
<form id="f" method="POST" action="${target}/api/v1/messages" enctype="text/plain" target="sink"><input name='${chat.slice(0, -1)}' value='}'></form>
<script>
window.report = {};
(async () => {
  const chat = ${JSON.stringify(chat)};
  // 80 no-cors POSTs with a text/plain body (a "simple" request: no preflight).
  await Promise.all(Array.from({ length: 80 }, () => fetch('${target}/v1/chat/completions', { method: 'POST', mode: 'no-cors', body: chat }).catch(() => null)));
  // A form post, waited for in its frame.
  await new Promise((resolve) => { document.getElementById('sink').onload = resolve; document.getElementById('f').submit(); setTimeout(resolve, 3000); });
  // A beacon.
  window.report.beacon = navigator.sendBeacon('${target}/v1/messages', chat);
  // A preflighted JSON POST and a CORS read of usage data: both must fail to be read.
  for (const [name, url, init] of [['json', '${target}/api/v1/messages', { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat }], ['usage', '${target}/usage/requests', {}], ['detailed', '${target}/health/detailed', {}]]) {
    try { const r = await fetch(url, init); window.report[name] = 'read ' + r.status + ' ' + (await r.text()).slice(0, 200); }
    catch (e) { window.report[name] = 'blocked'; }
  }
  // WebSockets: on a path without one, and on the Responses socket of each mode (docs/responses-socket.md).
  const socket = (path) => new Promise((resolve) => { try { const s = new WebSocket('${ws}' + path); s.onopen = () => { s.send(JSON.stringify({ type: 'response.create', model: 'assistant-sonnet-4-20250514', input: 'spend the owner quota' })); resolve('open'); }; s.onerror = () => resolve('error'); setTimeout(() => resolve('timeout'), 3000); } catch (e) { resolve('threw'); } });
  window.report.ws = await socket('/v1/messages');
  window.report.wsResponses = await socket('/v1/responses');
  window.report.wsDirect = await socket('/api/v1/responses');
  window.done = true;
})();
</script></body></html>`;
}

/** The rebinding page: same-origin requests to its own name, which now resolves to 127.0.0.1. */
const rebindingPage = `<!doctype html><html><body><script>
window.report = {};
(async () => {
  const chat = ${JSON.stringify(chat)};
  for (const [name, path, init] of [['models', '/api/v1/models', {}], ['chat', '/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: chat }], ['usage', '/usage/requests', {}], ['detailed', '/health/detailed', {}]]) {
    try { const r = await fetch(path, init); window.report[name] = r.status + ' ' + (await r.text()).slice(0, 300); }
    catch (e) { window.report[name] = 'failed ' + e; }
  }
  window.done = true;
})();
</script></body></html>`;

function get(
  port: number,
  path: string,
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe.skipIf(!haveChromium)('a hostile web page, in Chromium', () => {
  let sim: Simulator;
  let fake: FakeCli;
  let proxy: TestProxy;
  let ledger: UsageLedger;
  let attacker: Server;
  let attackerPort: number;
  let browser: Browser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'security-browser-'));
    sim = await startSimulator();
    fake = await makeFakeCli();
    // An expired token: a request that reached the direct path would refresh it, which the simulator counts.
    const credentialsPath = await writeCliCredentials(join(dir, 'cli'), {
      accessToken: 'sk-ant-oat01-browser-test-token-0123456789',
      refreshToken: 'sk-ant-ort01-browser-test-refresh-0123456789',
      expiresAt: Date.now() - 60_000,
    });
    ledger = UsageLedger.open({
      dataDir: join(dir, 'data'),
      retentionDays: 36_500,
      maxMb: 64,
      logger: createLogger('silent', new Writable({ write: (_c, _e, cb) => cb() })),
    });
    proxy = await startProxy(
      {
        modes: ['tool', 'direct'],
        cliPath: fake.path,
        apiBaseUrl: sim.url,
        credentialsPath,
        oauthTokenUrl: sim.cliTokenUrl,
        dataDir: join(dir, 'data'),
      },
      { usage: ledger },
    );
    // The attacker's own server: another origin on 127.0.0.1 (its own OS-chosen port). It serves the page for
    // whichever host name it was asked by, pointing at the proxy under the same name.
    attacker = createServer((req, res) => {
      const host = (req.headers.host ?? '').split(':')[0];
      res.writeHead(200, { 'content-type': 'text/html' }).end(attackPage(`http://${host}:${proxy.port}`));
    });
    await new Promise<void>((r) => attacker.listen(0, '127.0.0.1', r));
    attackerPort = (attacker.address() as AddressInfo).port;
    browser = await chromium.launch({
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
        '--host-resolver-rules=MAP evil.test 127.0.0.1',
      ],
    });
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((r) => attacker?.close(r));
    await proxy?.close();
    ledger?.close();
    await fake?.cleanup();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const refusedCount = async () => {
    const text = (await get(proxy.port, '/metrics')).body;
    return [...text.matchAll(/assistant_proxy_refused_requests_total\{reason="[a-z-]+"\} (\d+)/g)].reduce(
      (n, m) => n + Number(m[1]),
      0,
    );
  };

  it('reaches neither the provider nor the CLI, writes no ledger row and does not lock local clients out', async () => {
    const context = await browser.newContext();
    const reports: Array<Record<string, unknown>> = [];
    // From another port of 127.0.0.1 (same-site, other origin), then from localhost (the same, by name).
    for (const pageUrl of [`http://127.0.0.1:${attackerPort}/`, `http://localhost:${attackerPort}/`]) {
      const page = await context.newPage();
      await page.goto(pageUrl);
      await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true, undefined, {
        timeout: 20_000,
      });
      reports.push(await page.evaluate(() => (window as unknown as { report: Record<string, unknown> }).report));
      await page.close();
    }
    for (const report of reports) {
      expect(report.json).toBe('blocked');
      expect(report.usage).toBe('blocked');
      expect(report.detailed).toBe('blocked');
      expect(report.ws).not.toBe('open');
      expect(report.wsResponses).toBe('error');
      expect(report.wsDirect).toBe('error');
    }
    // Beacons are sent in the background, after the page is done: give them a moment before looking.
    await new Promise((r) => setTimeout(r, 1000));
    expect(sim.requests()).toEqual([]);
    expect(sim.tokenRefreshes).toBe(0);
    expect((await fake.records()).filter((r) => !r.argv.includes('--version') && !r.argv.includes('auth'))).toEqual([]);
    ledger.flush();
    expect(ledger.requests().rows).toEqual([]);
    // A local client (not a browser) still has its whole minute of the shared rate limit.
    const local = await get(proxy.port, '/v1/models');
    expect(local.status).toBe(200);
    expect(local.headers['x-ratelimit-remaining']).toBe('69');
    // Every request the two pages sent is refused and counted: 3 images, 80 POSTs, a form, a beacon, a
    // preflight (its POST is never sent) and two reads, per page.
    await expect.poll(refusedCount, { timeout: 10_000 }).toBeGreaterThanOrEqual(2 * (3 + 80 + 1 + 1 + 1 + 2));
    await context.close();
  });

  it('DNS rebinding: the page name resolved to 127.0.0.1 gets 403 for everything, and reads nothing', async () => {
    // evil.test resolves to 127.0.0.1 (the resolver rule). Its server first answers the document itself, then,
    // as if its DNS record had flipped to 127.0.0.1, hands every later connection to the proxy unchanged: the
    // page's same-origin requests reach the proxy with Host: evil.test:<port>, exactly as after a rebinding.
    const rebinder: NetServer = createNetServer((socket) => {
      socket.once('data', (first: Buffer) => {
        if (first.toString('latin1').startsWith('GET / ')) {
          socket.end(
            `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${Buffer.byteLength(rebindingPage)}\r\nconnection: close\r\n\r\n${rebindingPage}`,
          );
          return;
        }
        const upstream = connect(proxy.port, '127.0.0.1', () => {
          upstream.write(first);
          socket.pipe(upstream).pipe(socket);
        });
        upstream.on('error', () => socket.destroy());
        socket.on('error', () => upstream.destroy());
      });
    });
    await new Promise<void>((r) => rebinder.listen(0, '127.0.0.1', r));
    const port = (rebinder.address() as AddressInfo).port;
    const context = await browser.newContext();
    const page = await context.newPage();
    const before = await refusedCount();
    try {
      await page.goto(`http://evil.test:${port}/`);
      await page.waitForFunction(() => (window as unknown as { done?: boolean }).done === true, undefined, {
        timeout: 20_000,
      });
      const report = await page.evaluate(() => (window as unknown as { report: Record<string, string> }).report);
      expect(Object.keys(report)).toEqual(['models', 'chat', 'usage', 'detailed']);
      for (const [name, text] of Object.entries(report)) {
        expect(text, name).toMatch(/^403 /);
        expect(text, name).toContain('evil.test');
        expect(text, name).not.toMatch(/"data"|components|rows/);
      }
      expect(sim.requests()).toEqual([]);
      expect(sim.tokenRefreshes).toBe(0);
      ledger.flush();
      expect(ledger.requests().rows).toEqual([]);
      // Four requests of the page's, and Chromium's own /favicon.ico, which goes to the proxy too.
      expect(await refusedCount()).toBeGreaterThanOrEqual(before + 4);
    } finally {
      await context.close();
      await new Promise((r) => rebinder.close(r));
    }
  });
});
