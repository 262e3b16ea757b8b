// Every tab of the window at both sizes (800×600, 1280×800) and in both themes (the OS's prefers-color-scheme,
// set through Playwright's colorScheme): nothing wider than its card, no sideways scroll, no serious or critical
// axe-core violation, every control reachable from the keyboard with a visible focus ring, and a screenshot of
// each in test-artifacts/ (window-<tab>-<size>-<theme>.png). Real ProxyController and simulator behind the page.

import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { UsageLedger } from '../../src/proxy/usage/ledger.js';
import { openSampleLedger, realRequests } from './ledger-fixture.js';
import {
  axeViolations,
  chromiumPath,
  get,
  haveChromium,
  layoutProblems,
  screenshot,
  showTab,
  startHarness,
  type Harness,
} from './harness.js';

if (!haveChromium)
  console.warn(`[window.layout.browser.test] skipped: ${chromiumPath} is not installed (apt-get install -y chromium)`);

const tabs = ['overview', 'usage', 'log', 'diagnose', 'connect', 'settings'] as const;
const sizes = [
  { width: 800, height: 600 },
  { width: 1280, height: 800 },
];
const themes = ['light', 'dark'] as const;

describe.skipIf(!haveChromium)('window layout, themes and accessibility', () => {
  let h: Harness;
  let ledger: UsageLedger | undefined;
  let dir: string;

  beforeAll(async () => {
    // A real ledger file the proxy records into, seeded with 30 days of realistic history (ledger-fixture.ts); real
    // requests add to it, and direct mode's answer brings the simulator's quota headers.
    dir = await mkdtemp(join(tmpdir(), 'layout-ledger-'));
    ledger = await openSampleLedger(dir);
    h = await startHarness({ usage: ledger });
    await realRequests(h.port, h.sim);
    // Enough requests that the recent-requests table scrolls (a scrolling region must be keyboard-reachable).
    for (let i = 0; i < 20; i++) await get(h.port, '/v1/models');
    await get(h.port, '/no/such/route');
  });

  afterAll(async () => {
    await h?.close();
    ledger?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  for (const theme of themes) {
    for (const size of sizes) {
      it(
        `${size.width}×${size.height} ${theme}: every tab fits, passes axe and is screenshotted`,
        { timeout: 60_000 },
        async () => {
          const page = await h.open({ ...size, colorScheme: theme });
          try {
            const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
            // The theme follows the OS: a dark page in dark mode, a light one in light mode.
            const [r, g, b] = (bg.match(/\d+/g) ?? []).map(Number);
            expect((r + g + b) / 3 > 128 ? 'light' : 'dark').toBe(theme);
            await expect.poll(() => page.textContent('#state')).toBe('Running');
            for (const tab of tabs) {
              await showTab(page, tab);
              if (tab === 'diagnose') {
                await page.click('#diagnose-run');
                await expect
                  .poll(() => page.textContent('#diagnose-message'), { timeout: 20_000 })
                  .toMatch(/passed|failed/);
              }
              await page.waitForTimeout(tab === 'overview' ? 1200 : 300);
              const problems = await layoutProblems(page);
              expect(problems, `${tab}: ${problems.join('; ')}`).toEqual([]);
              const violations = await axeViolations(page);
              expect(violations, `${tab}: ${violations.join('; ')}`).toEqual([]);
              await screenshot(page, `window-${tab}-${size.width}x${size.height}-${theme}`);
              if (tab === 'connect') {
                // The longest snippet, with its comment lines (the Codex config.toml).
                await page.selectOption('#snippet-select', 'codex');
                expect(await layoutProblems(page), 'connect codex').toEqual([]);
                await screenshot(page, `window-connect-codex-${size.width}x${size.height}-${theme}`);
              }
            }
          } finally {
            await page.context().close();
          }
        },
      );
    }
  }

  // 800 px, and the window's smallest width (src/main/window.ts minWidth).
  for (const [theme, width] of [...themes.map((t) => [t, 800] as const), ['light', 720] as const]) {
    it(`${width}×600 ${theme}: the top bar stays one line with the longest state ("Running · see below")`, async () => {
      // Something needs a look (an Ollama port taken, a token about to end): the pill's longest words.
      const api = {
        ...h.api,
        getStatus: async () => ({ ...(await h.api.getStatus()), attention: ['Something needs a look'] }),
      };
      const page = await h.open({ width, height: 600, colorScheme: theme, api });
      try {
        await expect.poll(() => page.textContent('#state')).toBe('Running · see below');
        expect(await layoutProblems(page)).toEqual([]);
        // Stop stays whole and in the bar, and the pill's words are all there for a screen reader.
        const toggle = await page.$eval('#toggle', (e) => {
          const r = e.getBoundingClientRect();
          return { text: e.textContent, whole: e.scrollWidth <= e.clientWidth + 1, right: r.right };
        });
        expect(toggle).toMatchObject({ text: 'Stop', whole: true });
        expect(toggle.right).toBeLessThanOrEqual(width);
        await screenshot(page, `window-topbar-attention-${width}x600-${theme}`);
      } finally {
        await page.context().close();
      }
    });
  }

  it('every control on every tab is reachable with Tab and shows a visible focus ring; arrow keys move between tabs', async () => {
    const page = await h.open({ width: 1280, height: 800 });
    try {
      await page.focus('#tab-overview');
      await page.keyboard.press('ArrowRight');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-usage');
      expect(await page.getAttribute('#tab-usage', 'aria-selected')).toBe('true');
      await page.keyboard.press('End');
      expect(await page.evaluate(() => document.activeElement?.id)).toBe('tab-settings');
      await page.keyboard.press('Home');
      for (const tab of tabs) {
        await page.focus(`#tab-${tab}`);
        await page.keyboard.press('Enter');
        await page.waitForTimeout(300);
        const missed = await tabThrough(page, tab);
        expect(missed, tab).toEqual([]);
      }
    } finally {
      await page.context().close();
    }
  });
});

/** Presses Tab until focus leaves the page; returns the visible controls of the panel it never reached, or reached without a focus ring. */
async function tabThrough(page: Page, tab: string): Promise<string[]> {
  const wanted: string[] = await page.$$eval(
    `#panel-${tab} :is(button, input, select, textarea, [tabindex="0"]), .topbar button`,
    (els) =>
      els
        // A radio group is one tab stop (arrow keys move inside it): only its checked radio is expected.
        .filter(
          (e) =>
            (e as HTMLElement).offsetParent !== null &&
            !(e as HTMLButtonElement).disabled &&
            !((e as HTMLInputElement).type === 'radio' && !(e as HTMLInputElement).checked),
        )
        .map((e, i) => {
          (e as HTMLElement).dataset.kbd = String(i);
          return String(i);
        }),
  );
  const reached = new Set<string>();
  const noRing: string[] = [];
  for (let i = 0; i < wanted.length * 2 + 30; i++) {
    await page.keyboard.press('Tab');
    const info = await page.evaluate(() => {
      const e = document.activeElement as HTMLElement | null;
      if (!e || e === document.body) return undefined;
      const s = getComputedStyle(e);
      const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
      return { kbd: e.dataset.kbd, ring, name: `${e.tagName} ${e.id} ${e.textContent?.slice(0, 20) ?? ''}` };
    });
    if (!info) continue;
    if (info.kbd !== undefined) reached.add(info.kbd);
    if (!info.ring) noRing.push(`no focus ring: ${info.name}`);
  }
  const missed = await page.$$eval(
    '[data-kbd]',
    (els, r) =>
      els
        .filter((e) => !r.includes((e as HTMLElement).dataset.kbd ?? ''))
        .map(
          (e) =>
            `not reached: ${e.tagName} ${e.id} ${(e as HTMLElement).getAttribute('aria-label') ?? e.textContent?.slice(0, 20)}`,
        ),
    [...reached],
  );
  await page.$$eval('[data-kbd]', (els) => els.forEach((e) => delete (e as HTMLElement).dataset.kbd));
  return [...missed, ...new Set(noRing)];
}
