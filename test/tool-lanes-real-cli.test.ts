// Which lane paid, and the provider's billing refusals, in tool mode with the real assistant CLI pointed at the
// provider simulator (docs/usage.md "Lanes"): the CLI prints the provider's overage state in its rate_limit_event,
// and reports a billing refusal as its `<synthetic>` assistant line with `API Error: 400 …` and an error result (exit
// code 1). Skipped with the reason when the real CLI is not installed (npm run test:setup).

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UsageLedger } from '../src/proxy/usage/ledger.js';
import type { TestProxy } from './helpers/proxy.js';
import { billingRefusalText, startSimulator, type Simulator } from './simulator/index.js';
import { closeRealCliBed, realCliPresent, startRealCliBed } from './helpers/real-cli.js';
const present = realCliPresent('tool-lanes-real-cli.test');

describe.skipIf(!present)('billing lanes in tool mode with the real assistant CLI', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let home: string;
  let ledger: UsageLedger;

  beforeAll(async () => {
    sim = await startSimulator({ knobs: { answerTools: false } });
    ({ home, ledger, proxy } = await startRealCliBed('lanes-real-cli', sim.url));
  }, 60_000);
  afterAll(() => closeRealCliBed({ proxy, ledger, sim, home }));
  beforeEach(() => sim.reset());

  const ask = (path: string, body: unknown) =>
    fetch(`${proxy.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const native = {
    model: 'assistant-sonnet-4-20250514',
    max_tokens: 64,
    messages: [{ role: 'user', content: 'say hi' }],
  };
  const compat = { model: 'assistant-sonnet-4-20250514', messages: [{ role: 'user', content: 'say hi' }] };
  const last = () => {
    return ledger.requests({ limit: 1 }).rows[0];
  };

  it('records the plan, then extra usage, as the CLI reports the provider overage state', async () => {
    sim.knobs.overage = { inUse: false };
    const plan = await ask('/v1/messages', native);
    expect(plan.status).toBe(200);
    await plan.text();
    expect(last()).toMatchObject({ mode: 'tool', billingLane: 'plan', outcome: 'ok', tokensPartial: false });

    sim.knobs.overage = { inUse: true, utilization: 0.02 };
    const extra = await ask('/compat/v1/chat/completions', { ...compat, stream: true });
    expect(extra.status).toBe(200);
    await extra.text();
    expect(last()).toMatchObject({ mode: 'tool', billingLane: 'extra_usage', outcome: 'ok' });
  }, 60_000);

  it('carries the lane of a live conversation: extra usage over three turns, then a change back to the plan', async () => {
    sim.knobs.overage = { inUse: true, utilization: 0.02 };
    const messages: Array<{ role: string; content: string }> = [];
    const turn = async (text: string) => {
      messages.push({ role: 'user', content: text });
      const res = await ask('/v1/messages', { ...native, messages });
      const body = (await res.json()) as { content: Array<{ text: string }> };
      expect(res.status, JSON.stringify(body)).toBe(200);
      messages.push({ role: 'assistant', content: body.content.map((c) => c.text).join('') });
      const row = last();
      return [row.billingLane, row.laneCarried];
    };
    // The CLI prints its rate_limit_event on the first call of a process and then only when the figures change.
    expect(await turn('one')).toEqual(['extra_usage', false]);
    expect(await turn('two')).toEqual(['extra_usage', true]);
    expect(await turn('three')).toEqual(['extra_usage', true]);
    sim.knobs.overage = { inUse: false };
    expect(await turn('four')).toEqual(['plan', false]);
    expect(await turn('five')).toEqual(['plan', true]);
    // One live process answered every turn: what was carried is its own last report.
    const live = (await (await fetch(`${proxy.url}/health/detailed`)).json()) as {
      components: { cli_conversations: { continued: number } };
    };
    expect(live.components.cli_conversations.continued).toBeGreaterThanOrEqual(4);
  }, 90_000);

  it('explains the extra-usage refusal the CLI met, with its status, lane and refusal on the row', async () => {
    sim.knobs.billingRefusal = { reason: 'extra_usage_off' };
    const res = await ask('/compat/v1/chat/completions', compat);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; type: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toMatch(/^The provider billed or refused this as third-party use of a subscription/);
    expect(body.error.message).toContain(billingRefusalText.extra_usage_off);
    expect(last()).toMatchObject({
      mode: 'tool',
      status: 400,
      refusal: 'extra_usage_off',
      billingLane: 'extra_usage',
      outcome: 'upstream_error',
    });

    const streamed = await ask('/v1/messages', { ...native, stream: true });
    expect(streamed.status).toBe(400);
    const nativeBody = (await streamed.json()) as { type: string; error: { message: string } };
    expect(nativeBody.type).toBe('error');
    expect(nativeBody.error.message).toMatch(/^The provider billed or refused this as third-party use/);
    expect(proxy.logs().filter((l) => l.msg === 'billing refusal: extra_usage_off' && l.mode === 'tool').length).toBe(
      2,
    );
  }, 60_000);

  it('explains the CLI-only login refusal the same way', async () => {
    sim.knobs.billingRefusal = { reason: 'cli_only_credential' };
    const res = await ask('/v1/messages', native);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toMatch(/^This login only works through the CLI/);
    expect(last()).toMatchObject({ refusal: 'cli_only_credential', billingLane: 'plan' });
  }, 60_000);
});
