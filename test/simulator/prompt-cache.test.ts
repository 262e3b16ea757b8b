// The simulator bills like the provider (prompt-cache.ts) and refuses what the provider refuses (refusals.ts).
// Counted under the `bytes` rule: a text of 4 × n ASCII letters is n tokens.

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSse, startSimulator, type Simulator } from './index.js';

let sim: Simulator;
let clock = 1_000_000;
beforeAll(async () => {
  sim = await startSimulator({ knobs: { tokenRule: 'bytes' }, now: () => clock });
});
afterAll(async () => {
  await sim.close();
});
afterEach(() => sim.reset());

const key = { 'x-api-key': 'sk-ant-api03-test', 'content-type': 'application/json' };
const model = 'claude-sonnet-4-20250514';
const minute = 60_000;
/** A text of n tokens under the bytes rule. */
const text = (n: number, letter = 'a'): string => letter.repeat(4 * n);
const eph = (ttl?: '5m' | '1h') => (ttl ? { type: 'ephemeral', ttl } : { type: 'ephemeral' });

interface Usage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
}

async function post(body: Record<string, unknown>): Promise<Response> {
  return fetch(`${sim.url}/v1/messages`, {
    method: 'POST',
    headers: key,
    body: JSON.stringify({ model, max_tokens: 100, ...body }),
  });
}

async function usageOf(body: Record<string, unknown>): Promise<Usage> {
  const res = await post(body);
  expect(res.status).toBe(200);
  return ((await res.json()) as { usage: Usage }).usage;
}

/** A system prompt of `n` tokens, cached with `ttl`. */
const cachedSystem = (n: number, ttl?: '5m' | '1h') => [{ type: 'text', text: text(n), cache_control: eph(ttl) }];
const ask = (n: number, cc?: ReturnType<typeof eph>) => [
  { role: 'user', content: [{ type: 'text', text: text(n, 'q'), ...(cc ? { cache_control: cc } : {}) }] },
];

describe('prompt caching', () => {
  it('bills a request without breakpoints as plain input, counted at 4 bytes a token (count_tokens agrees)', async () => {
    const body = { system: text(1500), messages: ask(10) };
    expect(await usageOf(body)).toEqual({
      input_tokens: 1510,
      output_tokens: 4,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    });
    // Nothing was written: the same request again reads nothing.
    expect((await usageOf(body)).cache_read_input_tokens).toBe(0);
    const count = await fetch(`${sim.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ model, ...body }),
    });
    expect(await count.json()).toEqual({ input_tokens: 1510 });
  });

  it('writes the prefix up to a breakpoint, then reads it; what follows stays input', async () => {
    const body = { system: cachedSystem(1500), messages: ask(10) };
    expect(await usageOf(body)).toMatchObject({
      input_tokens: 10,
      cache_creation_input_tokens: 1500,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 1500, ephemeral_1h_input_tokens: 0 },
    });
    expect(await usageOf({ ...body, messages: ask(30) })).toMatchObject({
      input_tokens: 30,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 1500,
    });
    const billed = sim.requests('/v1/messages').map((r) => r.billed?.cache_read_input_tokens);
    expect(billed).toEqual([0, 1500]);
  });

  it("never writes a prefix below the model's minimum: 1,024 tokens for most, 2,048 for haiku-class", async () => {
    expect((await usageOf({ system: cachedSystem(1000), messages: ask(10) })).cache_creation_input_tokens).toBe(0);
    expect((await usageOf({ system: cachedSystem(1020), messages: ask(10, eph()) })).cache_creation_input_tokens).toBe(
      1030,
    );
    const haiku = { model: 'claude-3-5-haiku-20241022', system: cachedSystem(1500), messages: ask(10) };
    expect(await usageOf(haiku)).toMatchObject({ input_tokens: 1510, cache_creation_input_tokens: 0 });
    expect((await usageOf({ ...haiku, system: cachedSystem(2100) })).cache_creation_input_tokens).toBe(2100);
  });

  it('keeps a 5-minute entry 5 minutes from its last read, and a 1-hour entry an hour', async () => {
    const five = { system: cachedSystem(1200), messages: ask(5) };
    await usageOf(five);
    clock += 4 * minute;
    expect((await usageOf(five)).cache_read_input_tokens).toBe(1200);
    clock += 4 * minute; // 8 minutes after the write, 4 after the read that refreshed it
    expect((await usageOf(five)).cache_read_input_tokens).toBe(1200);
    clock += 5 * minute + 1;
    expect(await usageOf(five)).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 1200 });

    const hour = { system: cachedSystem(1300, '1h'), messages: ask(5) };
    expect((await usageOf(hour)).cache_creation).toEqual({
      ephemeral_5m_input_tokens: 0,
      ephemeral_1h_input_tokens: 1300,
    });
    clock += 50 * minute;
    expect((await usageOf(hour)).cache_read_input_tokens).toBe(1300);
    clock += 61 * minute;
    expect((await usageOf(hour)).cache_read_input_tokens).toBe(0);
  });

  it('splits a write by the lifetime of the breakpoint that ends each part', async () => {
    const body = { system: cachedSystem(1100, '1h'), messages: ask(400, eph('5m')) };
    expect(await usageOf(body)).toMatchObject({
      input_tokens: 0,
      cache_creation_input_tokens: 1500,
      cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 1100 },
    });
    // Six minutes on, the 5-minute entry is gone and the 1-hour one is read: only the message part is written again.
    clock += 6 * minute;
    expect(await usageOf(body)).toMatchObject({
      cache_read_input_tokens: 1100,
      cache_creation: { ephemeral_5m_input_tokens: 400, ephemeral_1h_input_tokens: 0 },
    });
  });

  it('orders the prefix tools, system, messages: a tool change misses all, a thinking change keeps tools and system', async () => {
    const tools = [{ name: 'lookup', description: text(300), input_schema: { type: 'object' } }];
    const body = { tools, system: cachedSystem(1100), messages: ask(300, eph()) };
    const first = await usageOf(body);
    expect(first.cache_read_input_tokens).toBe(0);
    const prompt = first.cache_creation_input_tokens;
    expect(prompt).toBeGreaterThan(1700); // the tool definition counts (its JSON), before the system prompt
    expect((await usageOf(body)).cache_read_input_tokens).toBe(prompt);
    // Thinking on: the message part is new, tools + system are read through the system breakpoint.
    const thinking = { ...body, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 } };
    const withThinking = await usageOf(thinking);
    expect(withThinking.cache_read_input_tokens).toBe(prompt - 300);
    expect(withThinking.cache_creation_input_tokens).toBe(300);
    const renamed = await usageOf({ ...body, tools: [{ ...tools[0], name: 'search' }] });
    expect(renamed.cache_read_input_tokens).toBe(0);
  });

  it('reads a conversation from its last breakpoint looking back up to 20 blocks, not further', async () => {
    const turn = (n: number) => [
      { role: 'user', content: [{ type: 'text', text: text(600, 'u') }] },
      { role: 'assistant', content: [{ type: 'text', text: text(20 + n, 'r') }] },
    ];
    const history = [...turn(0), ...turn(1)];
    // A user turn of `blocks` blocks of 10 tokens, the last one marked (as a client marks its newest turn).
    const last = (blocks: number, marked = true, letter = 'x') => ({
      role: 'user',
      content: Array.from({ length: blocks }, (_, i) => ({
        type: 'text',
        text: text(10, letter),
        ...(marked && i === blocks - 1 ? { cache_control: eph() } : {}),
      })),
    });
    const one = await usageOf({ messages: [...history, last(1)] });
    expect(one).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 1251, input_tokens: 0 });
    // The next turn moves the breakpoint to its own last block; the earlier one is 2 + 17 blocks back from it,
    // within the 20 looked at.
    const next = [...history, last(1, false), { role: 'assistant', content: 'ok' }];
    const two = await usageOf({ messages: [...next, last(18)] });
    expect(two).toMatchObject({ cache_read_input_tokens: 1251, cache_creation_input_tokens: 1 + 180, input_tokens: 0 });
    // One block more and the lookback from the new breakpoint no longer reaches the entry.
    const three = await usageOf({ messages: [...next, last(19, true, 'y')] });
    expect(three).toMatchObject({ cache_read_input_tokens: 0, cache_creation_input_tokens: 1251 + 1 + 190 });
  });

  it('caches up to the last block under a top-level cache_control (automatic caching)', async () => {
    const body = { cache_control: eph(), system: text(1100), messages: ask(50) };
    expect((await usageOf(body)).cache_creation_input_tokens).toBe(1150);
    expect(
      (await usageOf({ ...body, messages: [...ask(50), { role: 'assistant', content: 'ok' }, ...ask(20)] }))
        .cache_read_input_tokens,
    ).toBe(1150);
  });

  it('reports the bill in a stream’s message_start, and empties the cache on reset()', async () => {
    const body = { system: cachedSystem(1100), messages: ask(5), stream: true };
    await (await post(body)).text();
    const events = await readSse(await post(body));
    const start = events.find((e) => e.event === 'message_start')?.json as { message: { usage: Usage } };
    expect(start.message.usage).toMatchObject({
      input_tokens: 5,
      cache_read_input_tokens: 1100,
      cache_creation_input_tokens: 0,
    });
    sim.reset();
    expect((await usageOf({ ...body, stream: false })).cache_read_input_tokens).toBe(0);
  });
});

describe('refusals, in the provider’s words and shape', () => {
  const refused = async (body: Record<string, unknown>): Promise<string> => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.headers.get('request-id')).toMatch(/^req_sim_/);
    const json = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    return json.error.message;
  };
  const hi = [{ role: 'user', content: 'hi' }];

  it('refuses a thinking budget not below max_tokens, and one below 1,024', async () => {
    expect(
      await refused({ messages: hi, max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 } }),
    ).toMatch(/^`max_tokens` must be greater than `thinking.budget_tokens`/);
    expect(
      await refused({ messages: hi, max_tokens: 100, thinking: { type: 'enabled', budget_tokens: 1024 } }),
    ).toMatch(/must be greater than `thinking.budget_tokens`/);
    expect(await refused({ messages: hi, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 1000 } })).toBe(
      'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
    );
    expect(
      (await post({ messages: hi, max_tokens: 1025, thinking: { type: 'enabled', budget_tokens: 1024 } })).status,
    ).toBe(200);
    expect((await post({ messages: hi, max_tokens: 10, thinking: { type: 'disabled' } })).status).toBe(200);
  });

  it('refuses sampling changes and forced tool use with thinking', async () => {
    const thinking = { messages: hi, max_tokens: 4000, thinking: { type: 'enabled', budget_tokens: 2000 } };
    expect(await refused({ ...thinking, temperature: 0.2 })).toMatch(
      /^`temperature` may only be set to 1 when thinking is enabled/,
    );
    expect(await refused({ ...thinking, top_k: 5 })).toMatch(/^`top_k` must be unset when thinking is enabled/);
    expect(await refused({ ...thinking, top_p: 0.5 })).toMatch(/^`top_p` must be greater than or equal to 0.95/);
    const tools = [{ name: 'lookup', input_schema: { type: 'object' } }];
    expect(await refused({ ...thinking, tools, tool_choice: { type: 'any' } })).toBe(
      'Thinking may not be enabled when tool_choice forces tool use.',
    );
    expect((await post({ ...thinking, temperature: 1, top_p: 0.97 })).status).toBe(200);
    expect((await post({ messages: hi, temperature: 0.2, top_k: 5 })).status).toBe(200);
  });

  it('refuses a missing max_tokens and a temperature out of range', async () => {
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: key,
      body: JSON.stringify({ model, messages: hi }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('max_tokens: Field required');
    expect(await refused({ messages: hi, temperature: 1.5 })).toBe(
      'temperature: Input should be less than or equal to 1',
    );
  });

  it('refuses more than 4 breakpoints, an unknown lifetime, and a 1-hour breakpoint after a 5-minute one', async () => {
    const blocks = (n: number, ttl?: '5m' | '1h') =>
      Array.from({ length: n }, (_, i) => ({ type: 'text', text: `part ${i}`, cache_control: eph(ttl) }));
    expect(await refused({ system: blocks(3), messages: [{ role: 'user', content: blocks(2) }] })).toBe(
      'A maximum of 4 blocks with `cache_control` may be provided. Found 5.',
    );
    expect(await refused({ system: blocks(4), messages: hi, cache_control: eph() })).toMatch(/Found 5\.$/);
    expect(
      await refused({
        system: [{ type: 'text', text: 'x', cache_control: { type: 'ephemeral', ttl: '2h' } }],
        messages: hi,
      }),
    ).toBe("system.0.cache_control.ephemeral.ttl: Input should be '5m' or '1h'");
    expect(await refused({ system: blocks(1, '5m'), messages: [{ role: 'user', content: blocks(1, '1h') }] })).toMatch(
      /^messages\.0\.content\.0\.cache_control\.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block/,
    );
    expect(await refused({ system: [{ type: 'text', text: '', cache_control: eph() }], messages: hi })).toBe(
      'system.0: cache_control cannot be set for empty text blocks',
    );
    expect(
      (await post({ system: blocks(2, '1h'), messages: [{ role: 'user', content: blocks(2, '5m') }] })).status,
    ).toBe(200);
  });

  it('refuses a streamed request before the stream starts, and bills nothing for it', async () => {
    const res = await post({
      messages: hi,
      max_tokens: 500,
      stream: true,
      thinking: { type: 'enabled', budget_tokens: 1024 },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(sim.requests('/v1/messages').at(-1)?.billed).toBeUndefined();
  });
});
