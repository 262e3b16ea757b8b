// The lane of a live conversation's later turns (docs/usage.md "Lanes"), with the fake CLI, which prints a
// rate_limit_event on the turns FAKE_CLI_TURN_LANES names and none on the others, as the real CLI prints one only
// when the provider's figures change. A turn that printed none keeps the lane its process last reported, and the
// ledger row says it was carried, not reported. The real CLI's own behaviour: test/tool-lanes-real-cli.test.ts.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const reply = 'Hi from fake!';
let bed: ToolBed | undefined;
let ledger: UsageLedger | undefined;
let ledgerDir: string | undefined;

afterEach(async () => {
  await bed?.close();
  ledger?.close();
  if (ledgerDir) rmSync(ledgerDir, { recursive: true, force: true });
  bed = ledger = ledgerDir = undefined;
});

/** Live conversations on; each process prints the lanes `lanes` names turn by turn. */
async function start(lanes: string): Promise<{ b: ToolBed; l: UsageLedger }> {
  ledgerDir = mkdtempSync(join(tmpdir(), 'lanes-carried-'));
  ledger = UsageLedger.open({ dataDir: ledgerDir, retentionDays: 30, maxMb: 16 });
  const env = { FAKE_CLI_TURN_LANES: lanes, FAKE_CLI_TOOL_CALLS: '1' };
  bed = await startToolBed({ env }, { cliLiveMax: 4 }, {}, ledger);
  return { b: bed, l: ledger };
}

type Msg = { role: 'user' | 'assistant'; content: string };

/** One conversation of `turns` user turns, each a follow-up of the one before; the ledger's rows, oldest first. */
async function converse(b: ToolBed, l: UsageLedger, turns: number, stream = false) {
  const messages: Msg[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `Turn ${i + 1}.` });
    const res = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, messages, stream });
    expect(res.status).toBe(200);
    await res.text();
    messages.push({ role: 'assistant', content: reply });
  }
  await expect.poll(() => l.requests({ limit: 100 }).rows.length).toBe(turns);
  return l
    .requests({ limit: 100 })
    .rows.reverse()
    .map((r) => [r.billingLane, r.laneCarried]);
}

describe('the lane of a live conversation', () => {
  it('keeps extra usage over three turns of one process, reported once, then carried', async () => {
    const { b, l } = await start('extra_usage,,');
    expect(await converse(b, l, 3)).toEqual([
      ['extra_usage', false],
      ['extra_usage', true],
      ['extra_usage', true],
    ]);
    // One process answered all three: the carried lane is its own.
    expect((await b.cli.records()).filter((r) => r.argv.includes('-p'))).toHaveLength(1);
    const wire = (await (await fetch(`${b.url}/usage/requests?limit=1`, { headers: b.proxy.owner })).json()) as {
      requests: Array<Record<string, unknown>>;
    };
    expect(wire.requests[0]).toMatchObject({ billing_lane: 'extra_usage', lane_carried: true });
  });

  it('follows a change back to the plan, streamed, and carries the plan after it', async () => {
    const { b, l } = await start('extra_usage,,plan,');
    expect(await converse(b, l, 4, true)).toEqual([
      ['extra_usage', false],
      ['extra_usage', true],
      ['plan', false],
      ['plan', true],
    ]);
  });

  it('carries nothing into a fresh process: its first turn without an event has no lane', async () => {
    const { b, l } = await start('');
    expect(await converse(b, l, 2)).toEqual([
      [null, false],
      [null, false],
    ]);
  });

  it('carries the lane to the request that brings a waiting CLI its tool results', async () => {
    const { b, l } = await start('extra_usage');
    const tools = [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: {} } }];
    const ask = { role: 'user', content: 'weather?' };
    const call = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, tools, messages: [ask] });
    const first = (await call.json()) as { stop_reason: string; content: Array<{ id: string }> };
    expect(first.stop_reason).toBe('tool_use');
    const result = { type: 'tool_result', tool_use_id: first.content[0].id, content: 'sunny' };
    const messages = [ask, { role: 'assistant', content: first.content }, { role: 'user', content: [result] }];
    const answer = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, tools, messages });
    expect(answer.status).toBe(200);
    await answer.json();
    await expect.poll(() => l.requests({ limit: 10 }).rows.length).toBe(2);
    const [results, calls] = l.requests({ limit: 10 }).rows;
    expect([calls.billingLane, calls.laneCarried]).toEqual(['extra_usage', false]);
    expect([results.billingLane, results.laneCarried]).toEqual(['extra_usage', true]);
  });
});
