// The Usage tab in Chromium: summary tiles, charts and table for today / 7 / 30 days by model and by mode, the
// quota windows (bars, reset countdown, elapsed marker, "not observed yet"), the history with filters and paging,
// the inspector (with and without captured bodies), and CSV export. Behind ControlApi is the REAL usage ledger
// (UsageLedger, a SQLite file) that the real proxy records into: 30 days of realistic history are seeded
// (ledger-fixture.ts), then real requests through tool and direct mode are recorded by the pipeline, and the
// quota windows come from the simulator's quota headers on direct mode's real answer.

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UsageLedger } from '../../src/proxy/usage/ledger.js';
import { rangeStart } from '../../src/renderer/usage-view.js';
import { cacheReadShare } from '../../src/shared/cache-share.js';
import { currentSpan } from '../../src/shared/pace.js';
import {
  chromiumPath,
  haveChromium,
  layoutProblems,
  screenshot,
  showTab,
  startHarness,
  type Harness,
} from './harness.js';
import { openSampleLedger, realRequests } from './ledger-fixture.js';

if (!haveChromium)
  console.warn(`[window.usage.browser.test] skipped: ${chromiumPath} is not installed (apt-get install -y chromium)`);

describe.skipIf(!haveChromium)('usage tab', () => {
  let h: Harness;
  let page: Page;
  let dir: string;
  let ledger: UsageLedger;
  // Every record, newest first, as the ledger pages them.
  const all = () => ledger.requests({ limit: 100_000 }).rows;
  let captured: string;
  const realIds: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'usage-window-'));
    ledger = await openSampleLedger(dir);
    h = await startHarness({ usage: ledger });
    // Real requests through the proxy: tool mode (the fake CLI) and direct mode (the simulator, whose quota headers
    // the direct forwarder hands to the ledger).
    realIds.push(...(await realRequests(h.port, h.sim)));
    ledger.flush();
    captured = all().find((r) => r.outcome === 'ok' && r.mode === 'tool' && !realIds.includes(r.requestId))!.requestId;
    ledger.capture(captured, {
      request: { model: 'assistant-sonnet-4-20250514', messages: [{ role: 'user', content: 'Hello' }] },
      response: { content: [{ type: 'text', text: 'Hi!' }] },
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-ant-oat01-must-not-show-0123456789' },
    });
    page = await h.open({ width: 1280, height: 800 });
    await showTab(page, 'usage');
  });

  afterAll(async () => {
    await h?.close();
    ledger?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const text = (sel: string) => page.textContent(sel).then((t) => t ?? '');

  it('the requests made through the proxy are in the history, as the pipeline recorded them', async () => {
    await expect.poll(() => page.locator(`#history-rows tr[data-request-id="${realIds[0]}"]`).count()).toBe(1);
    const rows = await page.$$eval(
      '#history-rows tr',
      (trs, ids) =>
        trs
          .filter((tr) => ids.includes((tr as HTMLElement).dataset.requestId ?? ''))
          .map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')),
      realIds,
    );
    expect(rows.map((r) => [r[1], r[2], r[4]])).toEqual([
      ['POST /api/v1/messages', 'direct', '200 ok'],
      ['POST /v1/messages', 'tool', '200 ok'],
    ]);
  });

  it("today by model: tiles, chart and table agree with the ledger's summary", async () => {
    const expected = ledger.summary(rangeStart('today', Date.now()), Date.now(), 'model');
    await expect.poll(() => text('#u-requests')).toBe(String(expected.total.requests));
    expect(await text('#u-errors')).toBe(String(expected.total.errors));
    const keys = await page.$$eval('#usage-rows tr td:first-child', (tds) => tds.map((td) => td.textContent));
    expect(keys).toEqual(expected.rows.map((r) => r.key));
    expect(await page.getAttribute('#usage-groups', 'data-bars')).toBe(String(expected.rows.length));
    expect(await page.isVisible('#usage-daily')).toBe(false);
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-usage-today-by-model-1280x800-light');
  });

  it('7 and 30 days show a bar per day; by mode groups by mode', async () => {
    await page.click('#usage [data-range="7d"]');
    await expect.poll(() => page.getAttribute('#usage-daily', 'data-bars')).toBe('7');
    await page.click('#usage [data-range="30d"]');
    await expect.poll(() => page.getAttribute('#usage-daily', 'data-bars')).toBe('30');
    await page.click('#usage [data-by="mode"]');
    const expected = ledger.summary(rangeStart('30d', Date.now()), Date.now(), 'mode');
    await expect
      .poll(() => page.$$eval('#usage-rows tr td:first-child', (tds) => tds.map((td) => td.textContent)))
      .toEqual(expected.rows.map((r) => r.key));
    expect(await text('#usage-key-head')).toBe('Mode');
    expect(await page.getAttribute('#usage [data-by="mode"]', 'aria-pressed')).toBe('true');
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-usage-30-days-by-mode-1280x800-light');
  });

  it("quota windows from the simulator's headers: used share, reset countdown and the elapsed-time marker", async () => {
    const items = await page.$$eval('#quota-list li', (lis) =>
      lis.map((li) => ({
        text: li.textContent ?? '',
        fill: (li.querySelector('.fill') as HTMLElement).style.width,
        mark: (li.querySelector('.elapsed') as HTMLElement | null)?.style.left ?? null,
      })),
    );
    expect(items).toHaveLength(2);
    expect(items[0].text).toContain('5-hour window · direct mode');
    expect(items[0].text).toContain('18 % used');
    expect(items[0].text).toMatch(/resets in 2 h (29|30) min \(\d\d:\d\d\)/);
    expect(items[0].fill).toBe('18%');
    // 2.5 h left of 5 h: the marker sits at half the bar.
    expect(items[0].mark).toMatch(/calc\(50(\.\d)?% - 1px\)/);
    expect(items[1].text).toContain('7-day window');
    expect(items[1].text).toContain('23 % used');
    expect(await page.isVisible('#quota-empty')).toBe(false);
  });

  it('lanes, the pace projection and who used the 5-hour window, at each size and theme', async () => {
    // Real answers in each lane: the plan, then extra usage, with the 5-hour window 60 % used two hours in.
    const now = Date.now();
    const reset = Math.round((now + 3 * 3_600_000) / 1000);
    h.sim.knobs.quotaHeaders = {
      'anthropic-ratelimit-unified-5h-utilization': '0.6',
      'anthropic-ratelimit-unified-5h-reset': String(reset),
      'anthropic-ratelimit-unified-5h-status': 'allowed_warning',
    };
    let extraId = '';
    for (const [inUse, agent] of [
      [false, 'curl/8.5.0'],
      [true, 'OpenAI/JS 4.0.0'],
    ] as const) {
      h.sim.knobs.overage = { inUse, utilization: inUse ? 0.04 : 0 };
      const res = await fetch(`http://127.0.0.1:${h.port}/api/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': agent },
        body: JSON.stringify({
          model: 'assistant-sonnet-4-20250514',
          max_tokens: 32,
          messages: [{ role: 'user', content: 'Hello' }],
        }),
      });
      await res.text();
      if (inUse) extraId = res.headers.get('x-request-id') ?? '';
    }
    h.sim.knobs.quotaHeaders = {};
    h.sim.knobs.overage = undefined;
    ledger.flush();
    await page.click('#usage [data-range="today"]');
    await page.click('#usage [data-by="lane"]');
    const expected = ledger.summary(rangeStart('today', Date.now()), Date.now(), 'lane');
    await expect
      .poll(() => page.$$eval('#usage-rows tr td:first-child', (tds) => tds.map((td) => td.textContent)))
      .toEqual(expected.rows.map((r) => r.key));
    expect(expected.rows.map((r) => r.key)).toEqual(expect.arrayContaining(['plan', 'extra_usage']));
    expect(await text('#usage-key-head')).toBe('Lane');
    const five = await page.$$eval('#quota-list li', (lis) =>
      lis.map((li) => li.textContent ?? '').filter((t) => t.includes('5-hour window')),
    );
    expect(five[0]).toContain('60 % used');
    expect(five[0]).toMatch(/at this pace about 150 % by the reset: the limit at \d\d:\d\d/);
    expect(
      (await page.$$eval('#quota-list li', (lis) => lis.map((li) => li.textContent ?? ''))).some((t) =>
        t.startsWith('Extra usage'),
      ),
    ).toBe(true);
    const clients = await page.$$eval('#window-clients li .name', (els) => els.map((e) => e.textContent));
    expect(clients).toEqual(expect.arrayContaining(['curl', 'openai-js']));
    expect(await text('#window-clients-title')).toBe('This 5-hour window by client');
    // Each client's share of its input read from the cache, as the ledger sums it over the same window.
    const span = currentSpan(ledger.quotaWindows(), 'five_hour', 5 * 3600, Date.now());
    const expectedReads = Object.fromEntries(
      ledger.summary(span.from, Date.now(), 'client').rows.map((r) => {
        const read = cacheReadShare(r.tokens);
        return [r.key, read === null ? null : `${Math.round(read * 1000) / 10} % of its input read from the cache`];
      }),
    );
    const shownReads = await page.$$eval('#window-clients li', (lis) =>
      lis.map((li) => [li.querySelector('.name')?.textContent, li.querySelector('.cache-read')?.textContent ?? null]),
    );
    expect(Object.fromEntries(shownReads)).toEqual(
      Object.fromEntries(shownReads.map(([name]) => [name, expectedReads[name!]])),
    );
    expect(shownReads.some(([, read]) => typeof read === 'string' && !read.startsWith('0 %'))).toBe(true);
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-usage-lanes-pace-1280x800-light');
    for (const [width, height, colorScheme] of [
      [800, 600, 'dark'],
      [1280, 800, 'dark'],
      [800, 600, 'light'],
    ] as const) {
      const p = await h.open({ width, height, colorScheme });
      await showTab(p, 'usage');
      await p.click('#usage [data-by="client"]');
      await expect.poll(() => p.locator('#window-clients li').count()).toBeGreaterThan(0);
      expect(await text('#usage-key-head')).toBe('Lane'); // the first page is untouched
      expect(await p.textContent('#usage-key-head')).toBe('Client');
      expect(await layoutProblems(p)).toEqual([]);
      await screenshot(p, `window-usage-lanes-pace-${width}x${height}-${colorScheme}`);
      await p.close();
    }
    // The inspector says which lane paid.
    const p = await h.open({ width: 1280, height: 800 });
    await showTab(p, 'usage');
    await expect.poll(() => p.locator(`#history-rows tr[data-request-id="${extraId}"]`).count()).toBe(1);
    await p.click(`#history-rows tr[data-request-id="${extraId}"] button`);
    await expect.poll(() => p.textContent('#inspector-fields')).toContain('Paid byextra usage');
    await p.close();
  });

  it('history: filters, paging and the inspector (bodies only where captured)', async () => {
    await page.selectOption('#history-outcome', 'upstream_error');
    await expect
      .poll(async () =>
        (await page.$$eval('#history-rows tr td:nth-child(5)', (tds) => tds.map((td) => td.textContent ?? ''))).every(
          (t) => t.endsWith('upstream error'),
        ),
      )
      .toBe(true);
    const failing = all().filter((r) => r.outcome === 'upstream_error');
    expect(await page.locator('#history-rows tr').count()).toBe(Math.min(50, failing.length));
    await page.selectOption('#history-outcome', '');
    await page.selectOption('#history-mode', 'tool');
    await expect.poll(() => page.locator('#history-rows tr').count()).toBe(50);
    expect(
      (await page.$$eval('#history-rows tr td:nth-child(3)', (tds) => tds.map((td) => td.textContent))).every(
        (m) => m === 'tool',
      ),
    ).toBe(true);
    await page.click('#history-more');
    await expect.poll(() => page.locator('#history-rows tr').count()).toBeGreaterThan(50);

    await page.selectOption('#history-mode', '');
    const rec = all().find((r) => r.requestId === captured)!;
    await expect.poll(() => page.locator('#history-rows tr').count()).toBe(50);
    while ((await page.locator(`#history-rows tr[data-request-id="${captured}"]`).count()) === 0)
      await page.click('#history-more');
    await page.click(`#history-rows tr[data-request-id="${captured}"] button`);
    await expect.poll(() => text('#inspector-title')).toBe(`Request ${captured}`);
    const fields = await text('#inspector-fields');
    expect(fields).toContain(`Route${rec.method} ${rec.route}`);
    expect(fields).toContain(`Tokens${rec.tokens.input} in, ${rec.tokens.output} out`);
    expect(await text('#inspector-request')).toContain('"content":"Hello"');
    // The ledger redacts credential headers before keeping them.
    expect(await text('#inspector-headers')).toContain('authorization: [redacted]');
    expect(await text('#inspector')).not.toContain('must-not-show');
    expect(await page.isVisible('#inspector-nobodies')).toBe(false);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('inspector-title');
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-usage-history-inspector-1280x800-light');

    const plain = all().find((r) => r.route === '/no/such/route')!;
    await page.selectOption('#history-outcome', 'rejected');
    await page.click(`#history-rows tr[data-request-id="${plain.requestId}"] button`);
    await expect.poll(() => text('#inspector-title')).toBe(`Request ${plain.requestId}`);
    // An unmatched path is recorded (and shown) as the path itself.
    expect(await text('#inspector-fields')).toContain('RouteGET /no/such/route');
    expect(await page.isVisible('#inspector-nobodies')).toBe(true);
    expect(await page.isVisible('#inspector-request')).toBe(false);
  });

  it('exports the range as CSV (to the clipboard here: the test service has no file dialog)', async () => {
    await page.click('#usage [data-range="7d"]');
    await page.click('#usage-export');
    const from = rangeStart('7d', Date.now());
    const count = all().filter((r) => r.startedAt >= from).length;
    await expect.poll(() => text('#usage-message')).toBe(`Copied ${count} rows as CSV.`);
    const csv = h.copied.at(-1) ?? '';
    expect(csv.trim().split('\r\n')).toHaveLength(count + 1);
    expect(csv.startsWith('started_at,request_id,mode,')).toBe(true);
  });

  it('says "not observed yet" when no answer has reported a quota window', async () => {
    const emptyDir = await mkdtemp(join(tmpdir(), 'usage-window-noquota-'));
    const fresh = await openSampleLedger(emptyDir, { count: 20 });
    const other = await startHarness({ serviceDeps: { usage: fresh } });
    try {
      const p = await other.open({ width: 800, height: 600 });
      await showTab(p, 'usage');
      await expect.poll(() => p.textContent('#u-requests')).not.toBe('–');
      expect(await p.isVisible('#quota-empty')).toBe(true);
      expect(await p.textContent('#quota-empty')).toContain('Not observed yet');
      expect(await p.locator('#quota-list li').count()).toBe(0);
      await screenshot(p, 'window-usage-limits-not-observed-800x600-light');
    } finally {
      await other.close();
      fresh.close();
      await rm(emptyDir, { recursive: true, force: true });
    }
  });

  it('without a ledger, the tab says so instead of showing zeros', async () => {
    const bare = await startHarness();
    try {
      const p = await bare.open({ width: 800, height: 600 });
      await showTab(p, 'usage');
      await expect.poll(() => p.textContent('#usage-error')).toContain('The usage ledger is not running');
      expect(await p.isVisible('#usage-error')).toBe(true);
      expect(await p.textContent('#u-requests')).toBe('–');
    } finally {
      await bare.close();
    }
  });
});
