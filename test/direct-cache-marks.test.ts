// Direct mode's prompt-cache marks (src/proxy/modes/direct/cache-marks.ts) held to the provider's rules as the
// simulator keeps them (test/simulator/prompt-cache.ts bills, refusals.ts refuses): every request the marks produce
// must pass the provider's checks, and each request from the third on must read at least 95 % of the previous
// request's prompt from the cache, for a chat, for an agent loop whose turns add more blocks than the lookback, and
// beside a client's own marks.

import { describe, expect, it } from 'vitest';
import { withCacheMarks, type CacheTtl } from '../src/proxy/modes/direct/cache-marks.js';
import { defaultProfile } from '../src/proxy/profile.js';
import type { NativeContentBlock, NativeMessageParam, NativeRequest } from '../src/proxy/formats/native.js';
import { PromptCache, promptTokens } from './simulator/prompt-cache.js';
import { refusalOf } from './simulator/refusals.js';

const rules = defaultProfile.api.promptCache;
const model = 'claude-sonnet-4-6';
const words = (n: number, seed: string) => Array.from({ length: n }, (_, i) => `${seed}${i}`).join(' ');
const system = words(3000, 'sys');
const tools = Array.from({ length: 8 }, (_, i) => ({
  name: `tool_${i}`,
  description: words(40, `d${i}_`),
  input_schema: { type: 'object', properties: { path: { type: 'string' } } },
}));

function marks(req: NativeRequest): number {
  return JSON.stringify(req).split('"cache_control"').length - 1;
}

/** Bills each request in turn and returns, from the third on, the share of the previous prompt read. */
function readShares(requests: NativeRequest[], ttl: CacheTtl = '5m'): number[] {
  let t = 0;
  const cache = new PromptCache(() => (t += 1000));
  const shares: number[] = [];
  let previous = 0;
  requests.forEach((req, i) => {
    const sent = withCacheMarks(req, ttl, rules) as unknown as Record<string, unknown>;
    expect(refusalOf(sent), `request ${i + 1}`).toBeUndefined();
    expect(marks(sent as unknown as NativeRequest)).toBeLessThanOrEqual(rules.maxBreakpoints);
    const bill = cache.bill(sent, 'words');
    if (i >= 2) shares.push(bill.cache_read_input_tokens / previous);
    previous = promptTokens(sent, 'words');
  });
  return shares;
}

/** An n-turn chat: the conversation each request sends. */
function chat(turns: number): NativeRequest[] {
  const messages: NativeMessageParam[] = [];
  const out: NativeRequest[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: words(500, `u${i}_`) });
    out.push({ model, max_tokens: 1024, system, tools, messages: [...messages] });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: words(80, `a${i}_`) }] });
  }
  return out;
}

/** An agent loop whose every answer makes `calls` parallel tool calls, answered in one user message. */
function agentLoop(steps: number, calls: number): NativeRequest[] {
  const messages: NativeMessageParam[] = [{ role: 'user', content: 'Fix the failing tests in this repository.' }];
  const out: NativeRequest[] = [];
  for (let s = 0; s < steps; s++) {
    out.push({ model, max_tokens: 1024, system, tools, messages: [...messages] });
    const uses: NativeContentBlock[] = Array.from({ length: calls }, (_, k) => ({
      type: 'tool_use',
      id: `t${s}_${k}`,
      name: 'tool_1',
      input: { path: `src/f${s}_${k}.ts` },
    }));
    messages.push({ role: 'assistant', content: [{ type: 'text', text: 'Reading the files.' }, ...uses] });
    messages.push({
      role: 'user',
      content: uses.map((u, k) => ({
        type: 'tool_result',
        tool_use_id: (u as { id: string }).id,
        content: words(60, `r${s}_${k}_`),
      })),
    });
  }
  return out;
}

describe('prompt-cache marks on a translated request', () => {
  it('lets every chat turn from the third on read at least 95 % of the previous prompt', () => {
    const shares = readShares(chat(8));
    expect(shares).toHaveLength(6);
    for (const share of shares) expect(share).toBeGreaterThanOrEqual(0.95);
  });

  it('bridges an agent step that adds more blocks than the lookback (a dozen parallel tool calls)', () => {
    const loop = agentLoop(6, 12);
    const shares = readShares(loop);
    for (const share of shares) expect(share).toBeGreaterThanOrEqual(0.95);
    // Without the bridge the end mark alone misses: the step adds 25 blocks, more than the lookback of 20.
    const endOnly = { ...rules, lookbackBlocks: 1000 };
    let t = 0;
    const cache = new PromptCache(() => (t += 1000));
    const reads = loop.map((req) => cache.bill(withCacheMarks(req, '5m', endOnly) as never, 'words'));
    expect(reads.slice(2).every((b) => b.cache_read_input_tokens < promptTokens(loop[1] as never, 'words'))).toBe(true);
  });

  it('reads across 1-hour marks too, and keeps every mark at 1 hour', () => {
    const sent = withCacheMarks(chat(3)[2], '1h', rules);
    expect(JSON.stringify(sent)).not.toContain('"ttl":"5m"');
    expect(JSON.stringify(sent).split('"ttl":"1h"').length - 1).toBe(marks(sent));
    for (const share of readShares(chat(5), '1h')) expect(share).toBeGreaterThanOrEqual(0.95);
  });

  it('gives a one-off request (one message, no tools) only the stable-prefix mark', () => {
    const oneOff: NativeRequest = { model, max_tokens: 100, system, messages: [{ role: 'user', content: 'Hi' }] };
    const sent = withCacheMarks(oneOff, '5m', rules);
    expect(marks(sent)).toBe(1);
    expect(sent.system).toEqual([{ type: 'text', text: system, cache_control: { type: 'ephemeral' } }]);
    expect(sent.messages).toBe(oneOff.messages);
    const bare: NativeRequest = { model, max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }] };
    expect(withCacheMarks(bare, '5m', rules)).toBe(bare);
  });

  it('changes nothing the client sent: marked blocks and the lists on their path are copies', () => {
    const req = chat(4)[3];
    const before = JSON.stringify(req);
    const sent = withCacheMarks(req, '5m', rules);
    expect(JSON.stringify(req)).toBe(before);
    expect(marks(sent)).toBeGreaterThan(0);
    // Marked again as the next turn's history, the old marks do not pile up.
    expect(marks(withCacheMarks(chat(5)[4], '5m', rules))).toBe(marks(sent));
  });

  it('never marks a thinking block or an empty text block', () => {
    const req: NativeRequest = {
      model,
      max_tokens: 2048,
      tools,
      messages: [
        { role: 'user', content: words(2000, 'q') },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'hmm', signature: 'sig' },
            { type: 'tool_use', id: 't1', name: 'tool_0', input: {} },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: 'ok' },
            { type: 'text', text: '' },
          ],
        },
      ],
    };
    const sent = withCacheMarks(req, '5m', rules);
    expect(refusalOf(sent as never)).toBeUndefined();
    const last = sent.messages[2].content as unknown as Array<Record<string, unknown>>;
    expect(last[0].cache_control).toEqual({ type: 'ephemeral' });
    expect(last[1].cache_control).toBeUndefined();
    expect((sent.messages[1].content as unknown as Array<Record<string, unknown>>)[0].cache_control).toBeUndefined();
  });
});

describe("beside the client's own marks", () => {
  const clientMarked = (n: number, ttl?: '1h'): NativeRequest => {
    const req = chat(4)[3];
    const mark = ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' };
    return {
      ...req,
      tools: req.tools!.map((t, i) => (i < n ? { ...t, cache_control: mark } : t)),
    } as NativeRequest;
  };

  it.each([0, 1, 2, 3, 4])('keeps %i client marks and adds no more than the limit allows', (n) => {
    const sent = withCacheMarks(clientMarked(n), '5m', rules);
    expect(refusalOf(sent as never)).toBeUndefined();
    // A chat turn needs two of ours (its end and the system prompt's); no bridge, it adds fewer blocks than the lookback.
    expect(marks(sent)).toBe(Math.min(rules.maxBreakpoints, n + 2));
    expect(sent.tools!.filter((t) => 'cache_control' in t)).toHaveLength(n);
  });

  it('adds nothing to a request whose client already sent more marks than the provider takes', () => {
    const req = clientMarked(5);
    expect(withCacheMarks(req, '5m', rules)).toBe(req);
  });

  it('counts a top-level automatic mark as one of the four', () => {
    const req = { ...clientMarked(2), cache_control: { type: 'ephemeral' } } as NativeRequest;
    const sent = withCacheMarks(req, '5m', rules);
    expect(refusalOf(sent as never)).toBeUndefined();
    expect(marks(sent)).toBe(4);
  });

  it('keeps lifetimes in the order the provider requires', () => {
    // A client's 1-hour mark on a tool: our 5-minute marks would precede nothing of it, but a mark of ours before it
    // must be 1 hour. Ours all come after the tools here, so they stay 5 minutes.
    const after1h = withCacheMarks(clientMarked(1, '1h'), '5m', rules);
    expect(refusalOf(after1h as never)).toBeUndefined();
    // A client's 5-minute mark on a tool, with the 1-hour policy: ours after it must be 5 minutes.
    const after5m = withCacheMarks(clientMarked(1), '1h', rules);
    expect(refusalOf(after5m as never)).toBeUndefined();
    expect(JSON.stringify(after5m)).not.toContain('"ttl":"1h"');
    // A client's 1-hour mark on the last message, with the 5-minute policy: ours before it take 1 hour.
    const req = chat(3)[2];
    const lastMessage = req.messages.at(-1)!;
    const endMarked: NativeRequest = {
      ...req,
      messages: [
        ...req.messages.slice(0, -1),
        {
          ...lastMessage,
          content: [
            { type: 'text', text: lastMessage.content as string, cache_control: { type: 'ephemeral', ttl: '1h' } },
          ],
        },
      ],
    };
    const before1h = withCacheMarks(endMarked, '5m', rules);
    expect(refusalOf(before1h as never)).toBeUndefined();
    expect(marks(before1h)).toBeGreaterThan(1);
  });
});
