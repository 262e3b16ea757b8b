// A live real CLI killed mid-turn (docs/tool-mode.md "A CLI that dies mid-turn"): the provider simulator streams a
// slow answer, and 150 ms after the continued turn's provider call arrives the CLI process is ended with SIGKILL, as
// a process killed from outside is. A client reading the answer whole gets it from a fresh process with the whole
// conversation, counted once in the ledger; a streamed client that was sent content gets the format's error event.
// Skipped with the reason when the real CLI is not installed (npm run test:setup).

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { UsageLedger } from '../src/proxy/usage/ledger.js';
import type { TestProxy } from './helpers/proxy.js';
import { readSse, startSimulator, type Simulator } from './simulator/index.js';
import { closeRealCliBed, realCliPids, realCliPresent, startRealCliBed } from './helpers/real-cli.js';

const present = realCliPresent('tool-dies-mid-turn-real-cli.test');
const model = 'assistant-sonnet-4-20250514';
/** Thirty words, one chunk each 40 ms apart: a turn of over a second, killed well inside it. */
const reply = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');

describe.skipIf(!present)('a live real CLI killed mid-turn', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let home: string;
  let ledger: UsageLedger;
  /** The provider call the kill waits for (1-based); none when 0. */
  let killAtCall = 0;
  let killed: number[] = [];
  /** The processes earlier tests kept live: not this test's to kill. */
  let earlier = new Set<number>();

  beforeAll(async () => {
    let calls = 0;
    sim = await startSimulator({
      knobs: { replyText: reply, chunkIntervalMs: 40, answerTools: false },
      onBilled: () => {
        calls += 1;
        if (calls !== killAtCall) return;
        setTimeout(() => {
          killed = realCliPids().filter((pid) => !earlier.has(pid));
          for (const pid of killed) process.kill(pid, 'SIGKILL');
        }, 150);
      },
    });
    ({ home, ledger, proxy } = await startRealCliBed('dies-mid-turn', sim.url));
  }, 60_000);
  afterAll(() => closeRealCliBed({ proxy, ledger, sim, home }));
  beforeEach(() => {
    killAtCall = 0;
    killed = [];
    earlier = new Set(realCliPids());
  });

  const post = (body: Record<string, unknown>) =>
    fetch(`${proxy.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 200, ...body }),
    });
  const first = [{ role: 'user', content: 'My name is Ada.' }];
  const follow = [...first, { role: 'assistant', content: reply }, { role: 'user', content: 'And then?' }];
  const calls = () => sim.requests('/v1/messages').length;

  it('answers a non-streamed continued turn from a fresh process, once, as one ledger row', async () => {
    const opened = await post({ messages: first });
    expect(opened.status).toBe(200);
    await opened.json();
    const before = calls();
    const rowsBefore = ledger.requests({ limit: 100 }).rows.length;
    killAtCall = before + 1;
    const res = await post({ messages: follow });
    const body = (await res.json()) as { content: Array<{ text: string }>; stop_reason: string };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect(killed).toHaveLength(1);
    expect(body.content.map((c) => c.text).join('')).toBe(reply);
    expect(body.stop_reason).toBe('end_turn');
    // The killed process's call, then the fresh one's, which carries the whole conversation.
    const sent = sim.requests('/v1/messages').slice(before);
    expect(sent).toHaveLength(2);
    expect(JSON.stringify(sent[1].json)).toContain('My name is Ada.');
    const rows = ledger.requests({ limit: 100 }).rows;
    expect(rows.length - rowsBefore).toBe(1);
    expect(rows[0]).toMatchObject({ status: 200, outcome: 'ok', streamed: false });
  }, 60_000);

  it('ends a streamed continued turn that was sent content with an error event of the native stream', async () => {
    const opened = await post({ messages: first });
    await opened.json();
    const before = calls();
    killAtCall = before + 1;
    const res = await post({ messages: follow, stream: true });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(killed).toHaveLength(1);
    const names = events.map((e) => e.event);
    expect(names).toContain('content_block_delta');
    expect(names.at(-1)).toBe('error');
    expect(JSON.parse(events.at(-1)!.data)).toMatchObject({
      type: 'error',
      error: { type: 'api_error', message: expect.stringMatching(/ended by SIGKILL without finishing its answer/) },
    });
    // No fresh process answered it: the client had already been sent part of the answer.
    expect(calls() - before).toBe(1);
    expect(ledger.requests({ limit: 1 }).rows[0]).toMatchObject({ status: 200, errorType: 'api_error' });
  }, 60_000);
});
