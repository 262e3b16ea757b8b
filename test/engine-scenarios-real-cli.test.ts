// The conversation engine's scenarios, as a client meets them, with the real assistant CLI (docs/tool-mode.md "Live
// conversations", "Process hygiene", "The client's own tools", "Answers"). Each `it` replays one thing a chat
// UI, an agent or a second local user did to tool mode in the engine's adversarial review, and asserts the fixed
// behaviour from what the provider simulator received (model, max_tokens, system prompt, tools, messages) and what the
// client got. The fake CLI tests (test/tool-live.test.ts, test/tool-client-tools.test.ts) pin the engine's rules;
// this suite shows the real CLI 2.1.330 lives by them. Rows of the review covered elsewhere with the real CLI:
// - a fresh start gets the structured history, read from the cache on the turn after it:
//   test/tool-cache-real-cli.test.ts ("gives a fresh start the structured history ...");
// - a CLI whose proxy was killed makes no more provider calls: test/tool-dies-with-proxy.test.ts (the parent-death
//   signal; the same code path for any CLI);
// - a dead warm or live process replaced when nothing reached the client: test/tool-live.test.ts (the fake CLI: a
//   death between turns cannot be timed with the real one).
// Set up as test/tool-cache-real-cli.test.ts: a temporary HOME with an OAuth credential file and the CLI's base-URL
// variable pointing at the simulator, so nothing reaches a real provider; skipped with that reason when the real CLI
// is not installed (npm run test:setup, or REAL_ASSISTANT_CLI). One simulator; one small proxy per scenario, closed
// at its end, so no scenario's processes count in another's.

import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Settings } from '../src/proxy/config.js';
import { createProfile, toNeutralModel } from '../src/proxy/profile.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, type RecordedRequest, type Simulator } from './simulator/index.js';
import { realCliEnv, realCliHome, realCliPath, realCliPids, realCliPresent } from './helpers/real-cli.js';

const cliPath = realCliPath;
const present = realCliPresent('engine-scenarios-real-cli.test');

const profile = createProfile();
const model = 'assistant-sonnet-4-20250514';
const reply = 'Noted.';
/** A valid 1x1 PNG. */
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const weather = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};
const time = {
  name: 'get_time',
  description: 'Time in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } } },
};

type Block = { type: string; id?: string; text?: string; [k: string]: unknown };
type Msg = { role: 'user' | 'assistant'; content: string | Block[] };
interface Answer {
  status: number;
  model?: string;
  stop_reason?: string;
  content: Block[];
  text: string;
  raw: string;
}
/** What the provider received for one call. */
interface Upstream {
  model: string;
  max_tokens: number;
  system?: unknown;
  tools?: Array<{ name: string }>;
  messages: Array<{ role: string; content: unknown }>;
}

const user = (content: string | Block[]): Msg => ({ role: 'user', content });
const assistant = (content: string | Block[]): Msg => ({ role: 'assistant', content });
const results = (id: string, content: unknown = 'sunny'): Msg =>
  user([{ type: 'tool_result', tool_use_id: id, content }]);

// A CLI's own fork before it execs a tool is not a process of the proxy (helpers/proc-tree.ts).
const cliPids = (): number[] => realCliPids();
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
};

describe.skipIf(!present)('the conversation engine, scenario by scenario, with the real assistant CLI', () => {
  let sim: Simulator;
  let home: string;
  /** Called with each /v1/messages request the simulator accepts, as it arrives (before it answers). */
  let onArrival: ((r: RecordedRequest) => void) | undefined;
  const proxies = new Set<TestProxy>();

  beforeAll(async () => {
    sim = await startSimulator({
      knobs: { replyText: reply, answerTools: true, toolInput: { city: 'Rouen' }, toolCalls: 1 },
      onBilled: (r) => onArrival?.(r),
    });
    home = await realCliHome('engine-scenarios');
  }, 30_000);

  afterAll(async () => {
    for (const p of proxies) await p.close();
    await sim?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  beforeEach(() => {
    sim.reset();
    onArrival = undefined;
  });

  /** A proxy in tool mode on the real CLI; live conversations on, no warm pool, unless `settings` say otherwise. */
  async function open(settings: Settings = {}): Promise<TestProxy> {
    const p = await startProxy(
      {
        cliPath,
        cliWorkDir: join(home, 'work'),
        modes: ['tool'],
        cliFirstTokenTimeoutMs: 60_000,
        rateLimitPerMinute: 1000,
        cliLiveMax: 4,
        ...settings,
      },
      {
        deps: {
          childEnv: realCliEnv(home, sim.url),
        },
      },
    );
    proxies.add(p);
    return p;
  }
  async function shut(p: TestProxy): Promise<void> {
    proxies.delete(p);
    await p.close();
  }

  async function ask(p: TestProxy, body: Record<string, unknown>, path = '/v1/messages'): Promise<Answer> {
    const res = await fetch(`${p.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const raw = await res.text();
    let json: {
      model?: string;
      stop_reason?: string;
      content?: Block[];
      choices?: Array<{ message: { content: string } }>;
    } = {};
    try {
      json = JSON.parse(raw) as typeof json;
    } catch {
      // not JSON: kept in raw for the failure message
    }
    const content = json.content ?? [];
    const text =
      json.choices?.[0]?.message.content ?? content.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
    return { status: res.status, model: json.model, stop_reason: json.stop_reason, content, text, raw };
  }

  /** The provider calls from index `from` on. */
  const upstream = (from = 0): Upstream[] =>
    sim
      .requests('/v1/messages')
      .slice(from)
      .map((r) => r.json as Upstream);
  const count = () => sim.requests('/v1/messages').length;
  const textOf = (u: Upstream): string => JSON.stringify(u.messages);

  async function health(p: TestProxy): Promise<{
    cli_children: { waitingForTools: number };
    cli_conversations: { live: number; continued: number; lost: number; waitingForTools: number; evicted: number };
  }> {
    const body = (await (await fetch(`${p.url}/health/detailed`, { headers: p.owner })).json()) as {
      components: Awaited<ReturnType<typeof health>>;
    };
    return body.components;
  }

  /** A request that the simulator answers with one tool call; its id and the assistant message that carries it. */
  async function toolCall(p: TestProxy, body: Record<string, unknown>): Promise<{ id: string; call: Msg }> {
    const a = await ask(p, body);
    expect(a.status, a.raw).toBe(200);
    expect(a.stop_reason).toBe('tool_use');
    const use = a.content.find((b) => b.type === 'tool_use');
    expect(use?.id).toBeTruthy();
    return { id: use!.id!, call: assistant(a.content) };
  }

  it('tool results sent with another model, max_tokens, system prompt, tool list, an edited or a truncated history reach a fresh process, never the waiting one', async () => {
    const p = await open({ cliLiveMax: 8 });
    try {
      // The waiting process: started with sonnet, 300 tokens, the old system prompt, one tool, Ada's history.
      const history = [user('Hello, I am Ada.'), assistant('Hello Ada.'), user('What is the weather in Rouen?')];
      const asked = {
        model,
        max_tokens: 300,
        system: 'Answer briefly. Rule OLD-SYSTEM-7.',
        tools: [weather],
        messages: history,
      };
      const { id, call } = await toolCall(p, asked);
      const done = [...history, call, results(id)];
      expect((await health(p)).cli_children.waitingForTools).toBe(1);
      // A fresh process is given results as text (docs/tool-mode.md "A fresh start"), which the simulator would answer
      // with another tool call: from here it answers text, as a model that needs no more tools does.
      sim.knobs.answerTools = false;

      /** Sends the results with `change`; every provider call they caused, checked by `check`. */
      const variant = async (label: string, change: Record<string, unknown>, check: (u: Upstream) => void) => {
        const before = count();
        const a = await ask(p, { ...asked, messages: done, ...change });
        expect(a.status, `${label}: ${a.raw}`).toBe(200);
        expect(a.text, label).toBe(reply);
        const calls = upstream(before);
        expect(calls.length, label).toBeGreaterThan(0);
        for (const u of calls) check(u);
        return { answer: a, calls };
      };

      const opus = await variant('model', { model: 'assistant-opus-4-6' }, (u) => {
        expect(toNeutralModel(profile, u.model)).toMatch(/^assistant-opus-/);
      });
      // The answer names the model the provider received (never the waiting process's sonnet).
      expect(opus.answer.model).toBe(toNeutralModel(profile, opus.calls.at(-1)!.model));

      await variant('max_tokens', { max_tokens: 4000 }, (u) => expect(u.max_tokens).toBe(4000));

      await variant('system', { system: 'Answer briefly. Rule NEW-SYSTEM-9.' }, (u) => {
        expect(JSON.stringify(u.system)).toContain('NEW-SYSTEM-9');
        expect(JSON.stringify(u.system)).not.toContain('OLD-SYSTEM-7');
      });

      await variant('tools', { tools: [weather, time] }, (u) => {
        expect(u.tools?.map((t) => t.name).sort()).toEqual(['mcp__c__get_time', 'mcp__c__get_weather']);
      });

      // An edited first message: the provider sees the new text, and so does the conversation's next turn (the
      // process continued from the edit has the edited history, not the waiting one's).
      const edited = [user('Hello, I am Bea.'), ...done.slice(1)];
      const edit = await variant('edited', { messages: edited }, (u) => {
        expect(textOf(u)).toContain('I am Bea.');
        expect(textOf(u)).not.toContain('I am Ada.');
      });
      const before = count();
      const next = await ask(p, {
        ...asked,
        messages: [...edited, assistant(edit.answer.text), user('And tomorrow?')],
      });
      expect(next.status, next.raw).toBe(200);
      for (const u of upstream(before)) {
        expect(textOf(u)).toContain('I am Bea.');
        expect(textOf(u)).toContain('And tomorrow?');
        expect(textOf(u)).not.toContain('I am Ada.');
      }

      // A truncated history: the provider gets exactly the client's three messages (as the text encoding of a
      // conversation whose newest message holds tool results, docs/tool-mode.md "A fresh start": one turn element
      // per client message), none of the waiting process's five.
      const truncated = done.slice(2);
      expect(truncated).toHaveLength(3);
      await variant('truncated', { messages: truncated }, (u) => {
        // One user message holding a turn element per client message.
        expect(u.messages).toHaveLength(1);
        expect(textOf(u).match(/<turn role=/g), textOf(u)).toHaveLength(3);
        expect(textOf(u)).not.toContain('I am Ada.');
      });

      // The waiting process saw none of it: the exact results still reach it, its old settings and history intact,
      // and no process is started for them.
      const pids = new Set(cliPids());
      const from = count();
      const same = await ask(p, { ...asked, messages: done });
      expect(same.status, same.raw).toBe(200);
      expect(same.text).toMatch(/^The tool said: sunny/);
      const [u] = upstream(from);
      expect(u).toMatchObject({ max_tokens: 300 });
      expect(toNeutralModel(profile, u.model)).toBe(model);
      expect(JSON.stringify(u.system)).toContain('OLD-SYSTEM-7');
      expect(textOf(u)).toContain('I am Ada.');
      expect(cliPids().filter((pid) => !pids.has(pid))).toEqual([]);
      expect((await health(p)).cli_children.waitingForTools).toBe(0);
    } finally {
      await shut(p);
    }
  }, 120_000);

  it("an earlier message edited only in whitespace: the provider sees the new text, not the live process's old one", async () => {
    const p = await open();
    try {
      const first = [user('Should I run `rm -rf / tmp/build` now?')];
      const a1 = await ask(p, { model, max_tokens: 64, messages: first });
      expect(a1.status, a1.raw).toBe(200);
      const { continued } = (await health(p)).cli_conversations;
      const before = count();
      const edited = [user('Should I run `rm -rf /tmp/build` now?'), assistant(a1.text), user('Go on.')];
      const a2 = await ask(p, { model, max_tokens: 64, messages: edited });
      expect(a2.status, a2.raw).toBe(200);
      const calls = upstream(before);
      expect(calls.length).toBeGreaterThan(0);
      for (const u of calls) {
        expect(textOf(u)).toContain('rm -rf /tmp/build');
        expect(textOf(u)).not.toContain('rm -rf / tmp/build');
      }
      expect((await health(p)).cli_conversations.continued).toBe(continued);
      // The control: the unedited follow-up continues the first process, which has the old text.
      const from = count();
      const same = await ask(p, { model, max_tokens: 64, messages: [...first, assistant(a1.text), user('Go on.')] });
      expect(same.status, same.raw).toBe(200);
      expect(textOf(upstream(from)[0])).toContain('rm -rf / tmp/build');
      expect((await health(p)).cli_conversations.continued).toBe(continued + 1);
    } finally {
      await shut(p);
    }
  }, 60_000);

  it('a tool result holding an image, then later user turns of that conversation: each answered, none refused', async () => {
    const p = await open();
    try {
      const asked = { model, max_tokens: 200, tools: [weather], messages: [user('Show me the weather map of Rouen.')] };
      const { id, call } = await toolCall(p, asked);
      const image = user([
        {
          type: 'tool_result',
          tool_use_id: id,
          content: [
            { type: 'text', text: 'map attached' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: png } },
          ],
        },
      ]);
      const messages = [...asked.messages, call, image];
      const a = await ask(p, { ...asked, messages });
      expect(a.status, a.raw).toBe(200);
      expect(a.text).toMatch(/^The tool said: map attached/);
      sim.knobs.answerTools = false;
      for (const turn of ['Thanks. Is it raining?', 'And tomorrow?']) {
        messages.push(assistant(a.text), user(turn));
        const before = count();
        const later = await ask(p, { ...asked, messages });
        expect(later.status, `${turn}: ${later.raw}`).toBe(200);
        expect(later.text).toBe(reply);
        a.text = later.text;
        // The provider got the new turn, in a history that still holds the image.
        const [u] = upstream(before);
        expect(textOf(u)).toContain(turn);
        expect(textOf(u)).toContain(png);
      }
    } finally {
      await shut(p);
    }
  }, 60_000);

  describe('CLI_LIVE_MAX=4 and the warm pool: 4 tool calls left pending, 3 idle chats, then a new chat', () => {
    const liveMax = 4;
    const run = {
      /** CLI processes under the test process, every 20 ms. */
      samples: [] as number[],
      over: [] as Array<{ atMs: number; pids: number[]; phase: string }>,
      /** When each CLI process was first and last seen, ms from the start. */
      seen: new Map<number, { first: number; last: number }>(),
      phase: 'start',
      /** Per follow-up: did it continue its live process (health's `continued` went up by one). */
      followUps: [] as Array<{ chat: string; status: number; continued: boolean }>,
      atCap: undefined as Awaited<ReturnType<typeof health>> | undefined,
    };

    beforeAll(async () => {
      sim.reset();
      const p = await open({ cliLiveMax: liveMax, cliPoolSize: 1, cliMaxConcurrent: 4 });
      const started = Date.now();
      const timer = setInterval(() => {
        const pids = cliPids();
        const at = Date.now() - started;
        run.samples.push(pids.length);
        for (const pid of pids) run.seen.set(pid, { first: run.seen.get(pid)?.first ?? at, last: at });
        if (pids.length > liveMax) run.over.push({ atMs: at, pids, phase: run.phase });
      }, 20);
      try {
        // Each conversation is its own (its first message differs); two at a time, as two clients of one desktop.
        const pending = (i: number) =>
          toolCall(p, { model, max_tokens: 64, tools: [weather], messages: [user(`Weather in city number ${i}?`)] });
        run.phase = 'tool calls 1 and 2';
        await Promise.all([pending(1), pending(2)]);
        run.phase = 'tool calls 3 and 4';
        await Promise.all([pending(3), pending(4)]);
        sim.knobs.answerTools = false;
        const chats = new Map<string, Msg[]>();
        for (const name of ['idle chat 1', 'idle chat 2', 'idle chat 3', 'new chat']) {
          run.phase = name;
          const messages = [user(`Hello from ${name}.`)];
          const a = await ask(p, { model, max_tokens: 64, messages });
          expect(a.status, `${name}: ${a.raw}`).toBe(200);
          chats.set(name, [...messages, assistant(a.text)]);
        }
        run.atCap = await health(p);
        run.phase = 'follow-ups';
        for (const [chat, messages] of [...chats].reverse()) {
          const { continued } = (await health(p)).cli_conversations;
          const a = await ask(p, { model, max_tokens: 64, messages: [...messages, user('And then?')] });
          run.followUps.push({
            chat,
            status: a.status,
            continued: (await health(p)).cli_conversations.continued === continued + 1,
          });
        }
        // Left alone for a while: the warm pool refills, if the cap lets it.
        run.phase = 'left alone';
        await new Promise((r) => setTimeout(r, 1500));
      } finally {
        clearInterval(timer);
        await shut(p);
      }
    }, 90_000);

    it('keeps the idle chats and the new one: the pending tool calls, least recently used, made room', () => {
      expect(run.followUps.map((f) => f.status)).toEqual([200, 200, 200, 200]);
      expect(run.followUps).toEqual([
        { chat: 'new chat', status: 200, continued: true },
        { chat: 'idle chat 3', status: 200, continued: true },
        { chat: 'idle chat 2', status: 200, continued: true },
        { chat: 'idle chat 1', status: 200, continued: true },
      ]);
      expect(run.atCap?.cli_conversations.live).toBeLessThanOrEqual(liveMax);
      expect(run.atCap?.cli_conversations.waitingForTools).toBe(0);
      expect(run.atCap?.cli_conversations.evicted).toBeGreaterThanOrEqual(4);
    });

    it(`never runs more than CLI_LIVE_MAX CLI processes, counted by the OS at every instant`, () => {
      expect(run.samples.length).toBeGreaterThan(100);
      // On failure: the first over-cap samples, and when each of their processes was first and last seen.
      const first = run.over.slice(0, 3);
      const lives = [...new Set(first.flatMap((o) => o.pids))].map((pid) => ({ pid, ...run.seen.get(pid) }));
      // And how many over-cap samples held a process that was gone within 2.5 s (SIGTERM, then SIGKILL after 2 s): one
      // the proxy had already ended, still exiting.
      const exiting = run.over.filter((o) => o.pids.some((pid) => (run.seen.get(pid)?.last ?? 0) - o.atMs < 2500));
      const why = { over: run.over.length, heldAnExitingProcess: exiting.length, first, lives };
      expect(Math.max(...run.samples), JSON.stringify(why)).toBeLessThanOrEqual(liveMax);
    });
  });

  it('CLI_MAX_CONCURRENT=1 with the slot busy: tool results reach the provider only after the busy answer ended, and are answered', async () => {
    const p = await open({ cliMaxConcurrent: 1 });
    try {
      const asked = { model, max_tokens: 200, tools: [weather], messages: [user('Weather in Rouen, please?')] };
      const { id, call } = await toolCall(p, asked);
      // A long answer, streamed slowly by the provider, holds the only slot.
      const story = Array.from({ length: 12 }, (_, i) => `word${i}`).join(' ');
      Object.assign(sim.knobs, { replyText: story, chunkIntervalMs: 250, answerTools: false });
      const busy = ask(p, { model, max_tokens: 200, messages: [user('Tell me a long story.')] });
      await expect
        .poll(() => sim.requests('/v1/messages').some((r) => JSON.stringify(r.json).includes('a long story')), {
          timeout: 30_000,
        })
        .toBe(true);
      const busyCall = sim.requests('/v1/messages').find((r) => JSON.stringify(r.json).includes('a long story'))!;
      let seen: { busyAnswered: number | undefined } | undefined;
      onArrival = (r) => {
        if (JSON.stringify(r.json).includes(`"tool_use_id":"${id}"`))
          seen ??= { busyAnswered: busyCall.answeredStatus };
      };
      expect(busyCall.answeredStatus).toBeUndefined();
      const res = await ask(p, { ...asked, messages: [...asked.messages, call, results(id)] });
      expect(res.status, res.raw).toBe(200);
      expect(res.text).toMatch(/^The tool said: sunny/);
      const b = await busy;
      expect(b.status, b.raw).toBe(200);
      expect(b.text).toBe(story);
      // When the results' provider call arrived, the busy answer had already been sent whole.
      expect(seen).toEqual({ busyAnswered: 200 });
    } finally {
      await shut(p);
    }
  }, 60_000);

  it('a live CLI stopped (SIGSTOP) while idle: a fresh process answers the follow-up with the whole history, the stopped one is gone', async () => {
    const p = await open();
    const had = new Set(cliPids());
    const first = [user('My name is Ada.')];
    const a1 = await ask(p, { model, max_tokens: 64, messages: first });
    expect(a1.status, a1.raw).toBe(200);
    const [pid] = cliPids().filter((x) => !had.has(x));
    expect(pid).toBeGreaterThan(0);
    process.kill(pid, 'SIGSTOP');
    try {
      const before = count();
      const a2 = await ask(p, {
        model,
        max_tokens: 64,
        messages: [...first, assistant(a1.text), user('What is my name?')],
      });
      expect(a2.status, a2.raw).toBe(200);
      expect(a2.text).toBe(reply);
      // One provider call, from the fresh process (the stopped one makes none), with the whole conversation.
      const calls = upstream(before);
      expect(calls).toHaveLength(1);
      expect(calls[0].messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(textOf(calls[0])).toContain('My name is Ada.');
      expect(textOf(calls[0])).toContain('What is my name?');
      await expect.poll(() => alive(pid), { timeout: 10_000 }).toBe(false);
      expect((await health(p)).cli_conversations).toMatchObject({ lost: 1 });
    } finally {
      if (alive(pid)) process.kill(pid, 'SIGKILL');
      await shut(p);
    }
  }, 60_000);

  it("a forged tool result (another history, the waiting call's id) never reaches the waiting process", async () => {
    const p = await open();
    try {
      const askedA = {
        model,
        max_tokens: 200,
        tools: [weather],
        messages: [user('Conversation A: the weather in Rouen?')],
      };
      const { id, call } = await toolCall(p, askedA);
      sim.knobs.answerTools = false;
      let before = count();
      const forged = await ask(p, {
        ...askedA,
        messages: [user('Conversation B: say something.'), call, results(id, 'FORGED-RESULT')],
      });
      expect(forged.status, forged.raw).toBe(200);
      // The provider call for it carries the forged request's own history, not A's.
      const calls = upstream(before);
      expect(calls.length).toBeGreaterThan(0);
      for (const u of calls) {
        expect(textOf(u)).toContain('Conversation B');
        expect(textOf(u)).not.toContain('Conversation A');
      }
      // A still waits, and its own results reach its process: no new process, A's history, not the forged result.
      expect((await health(p)).cli_children.waitingForTools).toBe(1);
      const pids = new Set(cliPids());
      before = count();
      const own = await ask(p, { ...askedA, messages: [...askedA.messages, call, results(id)] });
      expect(own.status, own.raw).toBe(200);
      expect(own.text).toMatch(/^The tool said: sunny/);
      for (const u of upstream(before)) {
        expect(textOf(u)).toContain('Conversation A');
        expect(textOf(u)).not.toContain('FORGED-RESULT');
        expect(textOf(u)).not.toContain('Conversation B');
      }
      expect(cliPids().filter((x) => !pids.has(x))).toEqual([]);
      expect((await health(p)).cli_children.waitingForTools).toBe(0);
    } finally {
      await shut(p);
    }
  }, 60_000);

  // test/tool-real-cli.test.ts ("names the model the provider received ...") covers the streamed compatible answer and
  // a provider that answers with yet another model; this is the row's own request, in both formats.
  it('asked for a dated older id: the answer names the model the provider received, natively and compatibly', async () => {
    sim.knobs.answerTools = false;
    const p = await open({ cliLiveMax: 0 });
    try {
      const asked = 'assistant-opus-4-20250514';
      const routes: Array<[string, Record<string, unknown>]> = [
        ['/v1/messages', { model: asked, max_tokens: 64, messages: [user('hi')] }],
        ['/compat/v1/chat/completions', { model: asked, messages: [user('hi')] }],
      ];
      for (const [path, body] of routes) {
        const before = count();
        const a = await ask(p, body, path);
        expect(a.status, a.raw).toBe(200);
        const [u] = upstream(before);
        expect(a.model, path).toBe(toNeutralModel(profile, u.model));
        expect(a.model).toMatch(/^assistant-opus-/);
      }
    } finally {
      await shut(p);
    }
  }, 60_000);
});
