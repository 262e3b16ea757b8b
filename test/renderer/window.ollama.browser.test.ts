// The window's Ollama API setting and state (docs/ollama.md, docs/desktop.md) in real Chromium against a real
// ProxyController (harness.ts): turned on at a free port it answers there and the window says where; at a port a
// real Ollama holds, the setting still applies, the main port runs on, and the window says why the Ollama API is off.

import { createServer as createNetServer, type AddressInfo, type Server } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/free-port.js';
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
  console.warn(`[window.ollama.browser.test] skipped: ${chromiumPath} is not installed (apt-get install -y chromium)`);

describe.skipIf(!haveChromium)('the Ollama API in the window', () => {
  let h: Harness;
  let page: Page;
  let blocker: Server | undefined;

  beforeAll(async () => {
    h = await startHarness();
    page = await h.open({ width: 1280, height: 800 });
  });

  afterAll(async () => {
    blocker?.close();
    await h?.close();
  });

  it('is off by default, and its port and mode wait until it is turned on', async () => {
    await expect.poll(() => page.textContent('#state')).toBe('Running');
    expect(await page.textContent('#ollama-status')).toBe('Off');
    await showTab(page, 'settings');
    expect(await page.isChecked('#ollamaOn')).toBe(false);
    expect(await page.inputValue('#ollamaPort')).toBe('11434');
    expect(await page.isDisabled('#ollamaPort')).toBe(true);
    expect(await page.isDisabled('#ollamaMode')).toBe(true);
  });

  it('turned on at a free port: Ollama clients get answers there, and the window says where', async () => {
    const ollamaPort = await freePort();
    await showTab(page, 'settings');
    await page.check('#ollamaOn');
    expect(await page.isDisabled('#ollamaPort')).toBe(false);
    await page.fill('#ollamaPort', String(ollamaPort));
    await page.click('#apply');
    await expect.poll(() => page.textContent('#settings-message'), { timeout: 10_000 }).toContain('Settings applied');
    expect(h.controller.getSettings()).toMatchObject({ ollamaPort, ollamaMode: 'tool' });
    const version = await get(ollamaPort, '/api/version');
    expect(((await version.json()) as { version: string }).version).toMatch(/^\d+\.\d+\.\d+$/);
    await screenshot(page, 'window-settings-ollama-on-1280x800-light');
    await showTab(page, 'overview');
    await expect
      .poll(() => page.textContent('#ollama-status'))
      .toBe(`http://127.0.0.1:${ollamaPort} (chats in tool mode)`);
    await showTab(page, 'connect');
    expect(await page.textContent('#base-url-list')).toContain(`http://127.0.0.1:${ollamaPort}`);
    expect(await layoutProblems(page)).toEqual([]);
    await screenshot(page, 'window-connect-ollama-1280x800-light');
  });

  it("refuses the proxy's own port for it, under the field", async () => {
    await showTab(page, 'settings');
    await page.fill('#ollamaPort', String(h.controller.status().port));
    await page.click('#apply');
    await expect.poll(() => page.textContent('[data-error-for=ollamaPort]')).toContain("other than the proxy's own");
    await page.click('#revert');
  });

  it('at a port a real Ollama holds: applied, the main port runs on, and the window says why it is off', async () => {
    blocker = createNetServer();
    await new Promise<void>((r) => blocker!.listen(0, '127.0.0.1', r));
    const taken = (blocker.address() as AddressInfo).port;
    await page.fill('#ollamaPort', String(taken));
    await page.selectOption('#ollamaMode', 'direct');
    await page.click('#apply');
    await expect.poll(() => page.textContent('#settings-message'), { timeout: 10_000 }).toContain('Settings applied');
    const port = h.controller.status().port;
    expect((await get(port, '/v1/models')).status).toBe(200);
    await showTab(page, 'overview');
    await expect
      .poll(() => page.textContent('#ollama-status'))
      .toBe(`Off: port ${taken} is in use (is Ollama itself running?)`);
    expect(await page.textContent('#attention')).toContain(
      `Ollama port ${taken} is already in use (is Ollama itself running?)`,
    );
    // The main port runs; the pill says something needs a look, which the attention line names.
    expect(await page.textContent('#state')).toBe('Running · see below');
    expect(await layoutProblems(page)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await screenshot(page, 'window-overview-ollama-port-taken-1280x800-light');
    const small = await h.open({ width: 800, height: 600, colorScheme: 'dark' });
    await showTab(small, 'settings');
    expect(await layoutProblems(small)).toEqual([]);
    await screenshot(small, 'window-settings-ollama-800x600-dark');
  });
});
