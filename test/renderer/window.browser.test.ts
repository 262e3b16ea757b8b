// The desktop window's page in real Chromium (Playwright), wired to a REAL ProxyController and proxy running in
// this test process through the same ControlApi object the Electron main process uses (harness.ts). Each flaw a
// user could see in the first minute has a check here that would catch it. Skips, saying why, only when
// Chromium is not installed.

import { rm } from 'node:fs/promises';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
import {
  chromiumPath,
  get,
  haveChromium,
  layoutProblems,
  refuses,
  screenshot,
  showTab,
  startHarness,
  type Harness,
} from './harness.js';

if (!haveChromium)
  console.warn(`[window.browser.test] skipped: ${chromiumPath} is not installed (apt-get install -y chromium)`);

const cells = (page: Page, body: string) =>
  page.$$eval(`${body} tr`, (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));

describe.skipIf(!haveChromium)('desktop window in Chromium against a real proxy', () => {
  let h: Harness;
  let page: Page;
  let port: number;

  beforeAll(async () => {
    h = await startHarness();
    port = h.port;
    page = await h.open({ width: 1280, height: 800 });
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows a running proxy, its components and live metrics after requests', async () => {
    await expect.poll(() => page.textContent('#state')).toBe('Running');
    expect(await page.textContent('#address')).toBe(`http://127.0.0.1:${port}`);
    await expect.poll(() => page.textContent('#cli-status')).toBe('Found');
    expect(await page.textContent('#cli-path')).toBe(h.fake.path);
    expect(await page.textContent('#cli-version')).toBe('9.8.7');
    expect(await page.textContent('#login-status')).toBe('Yes');
    expect(await page.textContent('#uptime')).toMatch(/^\d+h \d+m \d+s$/);

    for (let i = 0; i < 3; i++) expect((await get(port, '/v1/models')).status).toBe(200);
    expect((await get(port, '/health')).status).toBe(200);
    expect((await get(port, '/no/such/route')).status).toBe(404);

    await expect.poll(() => page.textContent('#m-rpm'), { timeout: 5000 }).toBe('5');
    expect(Number(await page.textContent('#m-errors'))).toBe(1);
    expect(await page.textContent('#m-p50')).toMatch(/\d+ ms|\d\.\d+ s/);
    const rows = await cells(page, '#requests');
    expect(rows).toHaveLength(5);
    expect(rows.some((r) => r[1] === 'GET /v1/models' && r[4] === '200')).toBe(true);
    expect(rows.some((r) => r[4] === '404')).toBe(true);
    expect(await page.isVisible('#chart canvas')).toBe(true);
    await screenshot(page, 'window-overview-running-1280x800-light');
  });

  it('health: the login expiry is shown while logged in, and no gap opens under the Health card', async () => {
    // The CLI credential file of this test expires in 5 hours.
    await expect.poll(() => page.textContent('#login-expiry')).toMatch(/^in (4 h 5\d|5 h 0) min \(/);
    const gap = await page.evaluate(
      () =>
        document.getElementById('metrics')!.getBoundingClientRect().top -
        document.getElementById('health')!.getBoundingClientRect().bottom,
    );
    expect(gap).toBeLessThanOrEqual(24);
  });

  it('recent requests fit their card (no cut "Durat"), an unmatched path is not called "unmatched"', async () => {
    const long = `/respapi/a-rather-long-session-name-that-goes-on-${'x'.repeat(40)}/responses`;
    await fetch(`http://127.0.0.1:${port}${long}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await expect.poll(async () => (await cells(page, '#requests')).length, { timeout: 5000 }).toBe(6);
    const rows = await cells(page, '#requests');
    expect(rows.some((r) => r[1].includes('unmatched'))).toBe(false);
    // The path the client asked for, not the metrics' `unmatched` label.
    expect(rows.some((r) => r[1] === 'GET /no/such/route' && r[4] === '404')).toBe(true);
    expect(await page.$$eval('#recent th', (ths) => ths.map((th) => th.textContent))).toEqual([
      'Time',
      'Request',
      'Mode',
      'Model',
      'Status',
      'Duration',
      'Tokens in / out',
    ]);
    for (const size of [
      { width: 800, height: 600 },
      { width: 1280, height: 800 },
    ]) {
      await page.setViewportSize(size);
      expect(await layoutProblems(page)).toEqual([]);
      // Every header cell shows its whole text (a cut one has a scrollWidth beyond its box).
      expect(
        await page.$$eval('#recent th', (ths) =>
          ths.filter((th) => th.scrollWidth > th.clientWidth + 1).map((th) => th.textContent),
        ),
      ).toEqual([]);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('the chart spans the uptime, not ten empty minutes, and its legend has no "--" and does not wrap', async () => {
    const span = Number(await page.getAttribute('#chart', 'data-span-seconds'));
    const uptime =
      Number(/(\d+)s$/.exec((await page.textContent('#uptime')) ?? '')?.[1]) +
      60 * Number(/(\d+)m/.exec((await page.textContent('#uptime')) ?? '')?.[1]);
    expect(span).toBeLessThanOrEqual(uptime + 20);
    expect(await page.textContent('#metrics')).not.toContain('--');
    for (const width of [800, 1280]) {
      await page.setViewportSize({ width, height: 800 });
      const legend = await page.$eval('#chart-legend', (e) => ({
        h: e.getBoundingClientRect().height,
        items: [...e.children].map((li) => li.getBoundingClientRect().top),
      }));
      expect(new Set(legend.items).size).toBe(1);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('health: shows the warm CLI pool and the live conversations before and after a tool-mode chat', async () => {
    await expect.poll(() => page.textContent('#cli-pool')).toBe('Started after the first chat');
    await expect.poll(() => page.textContent('#cli-live')).toBe('None (up to 4)');
    const chat = await get(port, '/v1/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 20,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(chat.status).toBe(200);
    await chat.arrayBuffer();
    await expect
      .poll(() => page.textContent('#cli-pool'), { timeout: 10_000 })
      .toMatch(/^1 ready \(\d+ MB\) · 0\/1 chats warm$/);
    // The chat's process stays for a follow-up turn (docs/tool-mode.md "Live conversations").
    await expect
      .poll(() => page.textContent('#cli-live'), { timeout: 10_000 })
      .toMatch(/^1 of 4 \(\d+ MB\): 1 waiting$/);
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-overview-cli-pool-1280x800-light');
    const small = await h.open({ width: 800, height: 600, colorScheme: 'dark' });
    await expect.poll(() => small.textContent('#cli-pool')).toMatch(/^1 ready \(\d+ MB\) · 0\/1 chats warm$/);
    expect(await layoutProblems(small)).toEqual([]);
    await screenshot(small, 'window-overview-cli-pool-800x600-dark');
    await small.close();
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
    const row = async () => (await cells(page, '#session-rows')).filter((r) => r[0] === 'window-session');
    await expect
      .poll(row, { timeout: 5000 })
      .toEqual([['window-session', '2', expect.any(String), expect.any(String), 'End']]);
    await page.click('#session-rows tr:has-text("window-session") button');
    await expect.poll(row, { timeout: 5000 }).toEqual([]);
    expect(h.controller.sessions().some((s) => s.id === 'window-session')).toBe(false);
  });

  it("refuses port 70000 with one message, in the window's own words, and keeps the proxy where it was", async () => {
    await showTab(page, 'settings');
    await page.fill('#port', '70000');
    await expect.poll(() => page.textContent('#port-hint')).toBe('Choose a port from 1 to 65535');
    await page.click('#apply');
    await expect.poll(() => page.textContent('#port-error')).toBe('Choose a port from 1 to 65535');
    expect(await page.textContent('#port-hint')).toBe('');
    const text = (await page.textContent('#settings')) ?? '';
    expect(text.split('1 to 65535').length - 1).toBe(1);
    expect(text).not.toContain('0 to 65535');
    expect(text).not.toMatch(/PORT|--port/);
    expect(await page.getAttribute('#port', 'aria-invalid')).toBe('true');
    expect((await get(port)).status).toBe(200);
    expect(h.controller.status()).toMatchObject({ state: 'running', port });
    await screenshot(page, 'window-settings-invalid-port-1280x800-light');
  });

  it('refuses a port another server holds with one message under the field, and keeps the proxy on the old port', async () => {
    const blocker = createNetServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as AddressInfo).port;
    try {
      await page.fill('#port', String(taken));
      await expect.poll(() => page.textContent('#port-hint')).toContain(`Port ${taken} already in use`);
      await page.click('#apply');
      await expect.poll(() => page.textContent('#port-error')).toContain(`Port ${taken} already in use`);
      expect(await page.textContent('#settings-message')).toBe('Not applied: the previous settings were kept.');
      const text = (await page.textContent('#settings')) ?? '';
      expect(text.split('already in use').length - 1).toBe(1);
      expect((await get(port)).status).toBe(200);
      await expect.poll(() => page.textContent('#state')).toBe('Running');
      expect(await page.textContent('#address')).toContain(`:${port}`);
      await screenshot(page, 'window-settings-port-taken-1280x800-light');
    } finally {
      blocker.close();
    }
  });

  it('moves the proxy to a new free port: the old port refuses, the new one answers', async () => {
    const next = await freePort();
    await page.fill('#port', String(next));
    await page.click('#apply');
    await expect
      .poll(() => page.textContent('#settings-message'), { timeout: 10_000 })
      .toBe(`Settings applied. The proxy is running on http://127.0.0.1:${next}.`);
    expect(await page.textContent('#port-error')).toBe('');
    expect((await get(next)).status).toBe(200);
    expect(await refuses(port)).toBe(true);
    expect(await page.inputValue('#port')).toBe(String(next));
    await expect.poll(() => page.textContent('#address')).toBe(`http://127.0.0.1:${next}`);
    port = next;
  });

  it('stopped: nothing on the page says the proxy is running', async () => {
    await page.click('#toggle');
    await expect.poll(() => page.textContent('#state')).toBe('Stopped');
    expect(await refuses(port)).toBe(true);
    await expect.poll(() => page.textContent('#settings-message')).toBe('Settings applied.');
    for (const tab of ['settings', 'overview', 'connect'] as const) {
      await showTab(page, tab);
      expect(await page.textContent('body')).not.toMatch(/is running|running on/i);
    }
    expect(await page.textContent('#address')).toBe('');
    expect(await page.isVisible('#base-urls-stopped')).toBe(true);
    await showTab(page, 'overview');
    await expect.poll(() => page.isVisible('#metrics-stopped')).toBe(true);
    await screenshot(page, 'window-overview-stopped-1280x800-light');
    await expect.poll(() => page.textContent('#toggle')).toBe('Start');
    await page.click('#toggle');
    await expect.poll(() => page.textContent('#state')).toBe('Running');
    expect((await get(port)).status).toBe(200);
  });

  it('checks settings in the page before sending them (CORS on with no origin, no mode on)', async () => {
    await showTab(page, 'settings');
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
    expect(h.controller.getSettings()).toMatchObject({
      corsOrigins: ['http://localhost:3000'],
      modes: ['tool', 'direct'],
    });
    const res = await fetch(`http://127.0.0.1:${port}/v1/models`, { headers: { origin: 'http://localhost:3000' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
  });

  it('fills the CLI path from the picker', async () => {
    await page.fill('#cliPath', '');
    await page.click('#pick-cli');
    await expect.poll(() => page.inputValue('#cliPath')).toBe(h.fake.path);
  });

  it('health states follow real health: a CLI that is missing is amber, never green "Running"', async () => {
    // Before: a token that renews by itself (a refresh token beside it) and ends in 5 hours is not an attention item.
    expect(await page.$$eval('#attention li', (lis) => lis.length)).toBe(0);
    expect(await page.getAttribute('#state', 'data-state')).toBe('running');
    const applied = await h.controller.updateSettings({ cliPath: join(h.dir, 'no-such-cli') });
    expect(applied.ok).toBe(true);
    await h.controller.refreshProbe();
    await showTab(page, 'overview');
    await expect.poll(() => page.textContent('#state'), { timeout: 10_000 }).toBe('Running · no CLI');
    expect(await page.getAttribute('#state', 'data-state')).toBe('attention');
    expect(await page.textContent('#attention')).toContain('Assistant CLI not found');
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-overview-cli-missing-1280x800-light');
    const small = await h.open({ width: 800, height: 600, colorScheme: 'dark' });
    try {
      await expect.poll(() => small.textContent('#state'), { timeout: 10_000 }).toBe('Running · no CLI');
      expect(await layoutProblems(small)).toEqual([]);
      await screenshot(small, 'window-overview-cli-missing-800x600-dark');
    } finally {
      await small.context().close();
    }
    expect((await h.controller.updateSettings({ cliPath: h.fake.path })).ok).toBe(true);
    await h.controller.refreshProbe();
    await expect.poll(() => page.textContent('#state'), { timeout: 10_000 }).toBe('Running');
  }, 40_000);

  it('copies snippets, base URLs and model ids; every snippet fits its box at both sizes', async () => {
    await showTab(page, 'connect');
    await page.selectOption('#snippet-select', 'curl');
    expect(await page.textContent('#snippet-text')).toContain(`http://127.0.0.1:${port}/compat/v1/chat/completions`);
    await page.click('#copy-snippet');
    await expect.poll(() => h.copied.at(-1)).toContain(`curl http://127.0.0.1:${port}/compat/v1/chat/completions`);
    // Base URLs of the modes that are on (response API was switched off above), each with its own Copy.
    const urls = await page.$$eval('#base-url-list code', (cs) => cs.map((c) => c.textContent));
    // Each as the SDK it is labelled for takes it: the native SDKs add /v1 themselves.
    expect(urls).toEqual([
      `http://127.0.0.1:${port}`,
      `http://127.0.0.1:${port}/compat/v1`,
      `http://127.0.0.1:${port}/api`,
      `http://127.0.0.1:${port}/api/v1`,
    ]);
    await page.click(`#base-url-list li:has-text("/compat/v1") button`);
    await expect.poll(() => h.copied.at(-1)).toBe(`http://127.0.0.1:${port}/compat/v1`);
    // The live catalog: the simulator lists a model the built-in list does not have, with its context length.
    await expect
      .poll(() => page.$$eval('#model-list code', (cs) => cs.map((c) => c.textContent ?? '')), { timeout: 10_000 })
      .toContain('assistant-sonnet-4-7');
    const models = await page.$$eval('#model-list code', (cs) => cs.map((c) => c.textContent ?? ''));
    // Every id, the current ones first in the catalog's order, then the deprecated ones (still accepted), each marked
    // with what to use instead.
    const status = h.controller.status();
    const deprecated = new Set((status.modelDetails ?? []).filter((m) => m.deprecated).map((m) => m.id));
    expect(deprecated.size).toBeGreaterThan(0);
    expect(models).toEqual([
      ...status.models.filter((id) => !deprecated.has(id)),
      ...status.models.filter((id) => deprecated.has(id)),
    ]);
    const row = (id: string) => `#model-list li:has(code:text-is("${id}"))`;
    expect(await page.textContent(`${row('assistant-sonnet-4-20250514')} .deprecated`)).toBe(
      'deprecated (end of life 2026-06-15) → use assistant-sonnet-4-6',
    );
    expect(await page.textContent(`${row('assistant-opus-4-20250514')} .deprecated`)).toBe(
      'deprecated → use assistant-opus-4-6',
    );
    expect(await page.$$eval('#model-list .deprecated', (d) => d.length)).toBe(deprecated.size);
    expect(await page.$(`${row('assistant-sonnet-4-6')} .deprecated`)).toBeNull();
    // What each model takes, as the provider lists it (docs/models.md).
    expect(await page.textContent(`${row('assistant-sonnet-4-7')} .note`)).toBe(
      '1M context · 128K out · adaptive thinking (low–max) · JSON schema',
    );
    expect(await page.textContent(`${row('assistant-sonnet-4-6')} .note`)).toBe(
      '200K context · 64K out · adaptive or budget thinking (low–max) · JSON schema',
    );
    // Every item's lines sit the same distance apart, however tall its row is (a long neighbour used to spread them).
    const gaps = await page.$$eval('#model-list li', (lis) =>
      lis.flatMap((li) => {
        const lines = [...li.querySelectorAll('code, .note, .deprecated')].map((e) => e.getBoundingClientRect());
        return lines.slice(1).map((r, i) => Math.round(r.top - lines[i].bottom));
      }),
    );
    expect(Math.max(...gaps) - Math.min(...gaps)).toBeLessThanOrEqual(4);
    await screenshot(page, 'window-connect-models-1280x800-light');
    expect(await page.textContent('#model-catalog')).toMatch(
      /^From the provider's model list, read \d{4}-\d\d-\d\d \d\d:\d\d UTC\.$/,
    );
    await page.click(`${row(models[1])} button`);
    await expect.poll(() => h.copied.at(-1)).toBe(models[1]);
    // The mode picker offers the modes that are on; each coding agent's snippet follows it (docs/clients.md).
    expect(await page.$$eval('#snippet-mode option', (os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual([
      'tool',
      'direct',
    ]);
    await page.selectOption('#snippet-select', 'opencode');
    expect(
      JSON.parse((await page.textContent('#snippet-text')) ?? '').provider['assistant-proxy'].options.baseURL,
    ).toBe(`http://127.0.0.1:${port}/v1`);
    await page.selectOption('#snippet-mode', 'direct');
    expect(
      JSON.parse((await page.textContent('#snippet-text')) ?? '').provider['assistant-proxy'].options.baseURL,
    ).toBe(`http://127.0.0.1:${port}/api/v1`);
    await page.selectOption('#snippet-select', 'cline');
    expect(await page.textContent('#snippet-text')).toMatch(
      new RegExp(`^cline auth -p openai -k dummy -m assistant-sonnet-4-7 -b http://127\\.0\\.0\\.1:${port}/api/v1$`),
    );
    expect(await page.textContent('#snippet-hint')).toContain('OpenAI Compatible');
    await page.click('#copy-snippet');
    await expect.poll(() => h.copied.at(-1)).toContain(`-b http://127.0.0.1:${port}/api/v1`);
    // Codex is told the model's window from the live catalog (the simulator's 1M), and where it compacts.
    await page.selectOption('#snippet-select', 'codex');
    expect(await page.textContent('#snippet-text')).toContain(
      'model_context_window = 1_000_000\nmodel_auto_compact_token_limit = 868_000\n',
    );
    for (const size of [
      { width: 800, height: 600 },
      { width: 1280, height: 800 },
    ]) {
      await page.setViewportSize(size);
      for (const mode of ['tool', 'direct']) {
        await page.selectOption('#snippet-mode', mode);
        for (const option of await page.$$eval('#snippet-select option', (os) =>
          os.map((o) => (o as HTMLOptionElement).value),
        )) {
          await page.selectOption('#snippet-select', option);
          expect(await layoutProblems(page), `${mode} ${option}`).toEqual([]);
        }
      }
      await page.selectOption('#snippet-select', 'opencode');
      await screenshot(page, `window-connect-opencode-direct-${size.width}x${size.height}-light`);
      await page.selectOption('#snippet-mode', 'tool');
      await page.selectOption('#snippet-select', 'openai-python');
      // The whole line is on screen: nothing past api_key="dum is cut off.
      expect(await page.textContent('#snippet-text')).toContain('api_key="dummy")');
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('live log: lines appear as requests happen (no secrets), filter by level, pause, copy, and the log file button', async () => {
    await showTab(page, 'log');
    const secret = 'sk-ant-oat01-leaked-in-a-message-0123456789';
    h.logger.warn({ detail: `upstream said ${secret}` }, 'a warning with a token in it');
    await get(port, '/v1/models');
    const lines = () => page.$$eval('#log-lines .log-line', (ls) => ls.map((l) => l.textContent ?? ''));
    await expect
      .poll(
        async () =>
          (await lines()).some((l) => /INFO\s*GET \/v1\/models 200 \d+ ms/.test(l) && l.includes('requestId=req_')),
        { timeout: 5000 },
      )
      .toBe(true);
    await expect
      .poll(async () => (await lines()).some((l) => l.includes('WARN') && l.includes('a warning with a token in it')))
      .toBe(true);
    expect((await page.textContent('#log-lines')) ?? '').not.toContain(secret);
    await screenshot(page, 'window-log-live-1280x800-light');
    // Level filter: warnings and errors only.
    await page.selectOption('#log-level', 'warn');
    expect((await lines()).every((l) => /WARN|ERROR|FATAL/.test(l))).toBe(true);
    expect((await lines()).length).toBeGreaterThan(0);
    await page.selectOption('#log-level', 'info');
    // Pause: new lines wait (and are counted) until Resume.
    await page.click('#log-pause');
    expect(await page.getAttribute('#log-pause', 'aria-pressed')).toBe('true');
    const before = (await lines()).length;
    h.logger.info('while paused');
    await expect.poll(() => page.textContent('#log-note'), { timeout: 5000 }).toMatch(/Paused: \d+ new lines? waiting/);
    expect((await lines()).length).toBe(before);
    await page.click('#log-pause');
    await expect.poll(async () => (await lines()).some((l) => l.includes('while paused'))).toBe(true);
    // Copy: the shown lines as JSON, redacted.
    await page.click('#log-copy');
    await expect.poll(() => h.copied.at(-1) ?? '').toContain('"msg":"while paused"');
    expect(h.copied.at(-1)).not.toContain(secret);
    for (const json of (h.copied.at(-1) ?? '').split('\n')) expect(() => JSON.parse(json)).not.toThrow();
    // The log file stays one click away (the test service has no file: it says why).
    await page.click('#log-open');
    await expect.poll(() => page.getAttribute('#open-logs', 'title')).toContain('logs to its terminal');
  });

  it('diagnose: the report shows each check, one deliberately failing with its remedy, and copies as text', async () => {
    // The provider stops accepting the CLI's login (a revoked token that cannot be refreshed): direct mode's
    // check must fail and say what to do. (Response API was switched off in the settings test above.)
    h.sim.mintCliAccessToken();
    h.sim.knobs.refreshFail = true;
    try {
      await showTab(page, 'diagnose');
      await page.click('#diagnose-run');
      await expect.poll(() => page.textContent('#diagnose-message'), { timeout: 20_000 }).toMatch(/passed|failed/);
      const checks = await page.$$eval('#diagnose-checks li', (lis) =>
        lis.map((li) => [(li as HTMLElement).dataset.check, (li as HTMLElement).dataset.status, li.textContent ?? '']),
      );
      expect(checks.map((c) => [c[0], c[1]])).toEqual([
        ['cli', 'pass'],
        ['login', 'pass'],
        ['tool-request', 'pass'],
        ['direct-models', 'fail'],
      ]);
      expect(await page.textContent('#diagnose-message')).toBe('1 check failed: see what to do below.');
      expect(checks[3][2]).toContain('What to do: Log in with the CLI');
      expect(await layoutProblems(page)).toEqual([]);
      await screenshot(page, 'window-diagnose-report-1280x800-light');
      await page.click('#diagnose-copy');
      await expect
        .poll(() => h.copied.at(-1) ?? '')
        .toContain("[FAIL] Direct mode's credentials accepted by the provider (direct)");
      expect(h.copied.at(-1)).toContain('1 check failed.');
      expect(h.copied.at(-1)).not.toMatch(/sk-ant-o[ar]t01-window/);
    } finally {
      h.sim.reset();
    }
  }, 40_000);

  it('the tray\'s "Diagnose…" shows the Diagnose tab and runs it', async () => {
    await showTab(page, 'overview');
    await page.evaluate(() =>
      (window as unknown as { __show(w: unknown): void }).__show({ panel: 'diagnose', run: true }),
    );
    expect(await page.getAttribute('#tab-diagnose', 'aria-selected')).toBe('true');
    expect(await page.isVisible('#panel-diagnose')).toBe(true);
    await expect.poll(() => page.textContent('#diagnose-message'), { timeout: 20_000 }).toBe('All checks passed.');
  }, 30_000);

  it('diagnose: response-API mode without its login is "not set up", not a failure, with how to set it up', async () => {
    await rm(join(h.dir, 'respapi'), { recursive: true, force: true });
    const applied = await h.controller.updateSettings({ modes: ['tool', 'direct', 'respapi'] });
    expect(applied.ok).toBe(true);
    await showTab(page, 'diagnose');
    await page.click('#diagnose-run');
    await expect.poll(() => page.textContent('#diagnose-message'), { timeout: 20_000 }).toMatch(/passed|failed/);
    const checks = await page.$$eval('#diagnose-checks li', (lis) =>
      lis.map((li) => [(li as HTMLElement).dataset.check, (li as HTMLElement).dataset.status, li.textContent ?? '']),
    );
    expect(checks.map((c) => [c[0], c[1]])).toEqual([
      ['cli', 'pass'],
      ['login', 'pass'],
      ['tool-request', 'pass'],
      ['direct-models', 'pass'],
      ['respapi-credentials', 'unset'],
    ]);
    expect(checks[4][2]).toContain('NOT SET UP');
    expect(checks[4][2]).toContain('To use it: Log in with the response-API CLI');
    expect(await page.textContent('#diagnose-message')).toBe(
      'All checks passed. A mode that is not set up says how to set it up below.',
    );
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-diagnose-not-set-up-1280x800-light');
  }, 40_000);

  it('shows a notice until it is dismissed', async () => {
    await showTab(page, 'overview');
    h.controller.addNotice('The settings file could not be read; defaults are in use.');
    await expect.poll(() => page.textContent('#notices')).toContain('defaults are in use');
    await page.click('#notices button');
    await expect.poll(() => page.locator('#notices li').count()).toBe(0);
    expect(h.controller.status().notices).toEqual([]);
    expect(h.pageErrors).toEqual([]);
  });
});
