// Live conversations (docs/tool-mode.md "Live conversations"), driven through the proxy with the fake CLI, which
// reads user lines turn after turn as the real CLI does and records every turn it was written: a follow-up turn
// continues in the same process and only the new turn is written to it; anything else starts a fresh process; a
// client gone mid-turn, the caps, the idle lifetime, a login change and stop end them; /health/detailed shows them.
// A live process that died between turns is replaced, once, by a fresh process before anything reached the client.

import { readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { CliBackend } from '../src/proxy/modes/tool/engine/cli-backend.js';
import { validateSettings, type Settings } from '../src/proxy/config.js';
import type { NativeStreamEvent } from '../src/proxy/formats/native.js';
import { createLogger } from '../src/proxy/logger.js';
import { createProfile } from '../src/proxy/profile.js';
import { makeFakeCli, type FakeCliKnobs, type FakeCliRecord } from './fixtures/fake-cli.js';
import { childEnv, postJson, readSse, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const reply = 'Hi from fake!';
let bed: ToolBed | undefined;

afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

async function start(knobs: FakeCliKnobs = {}, settings: Settings = {}): Promise<ToolBed> {
  bed = await startToolBed(knobs, { cliLiveMax: 4, ...settings });
  return bed;
}

type Msg = { role: 'user' | 'assistant'; content: unknown };

async function ask(
  b: ToolBed,
  messages: Msg[],
  extra: Record<string, unknown> = {},
): Promise<{ status: number; text: string }> {
  const res = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, messages, ...extra });
  const body = (await res.json()) as { content?: Array<{ text: string }> };
  return { status: res.status, text: body.content?.map((c) => c.text).join('') ?? JSON.stringify(body) };
}

async function chatRecords(b: ToolBed): Promise<FakeCliRecord[]> {
  return await b.cli.chatRecords();
}

interface LiveView {
  live: number;
  idle: number;
  busy: number;
  continued: number;
  kept: number;
  expired: number;
  evicted: number;
  replaced: number;
  lost: number;
  conversations: Array<{ id: string; state: string; turns: number; model: string }>;
}

async function live(b: ToolBed): Promise<LiveView> {
  const body = (await (await fetch(`${b.url}/health/detailed`)).json()) as {
    components: { cli_conversations: LiveView };
  };
  return body.components.cli_conversations;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('a follow-up turn', () => {
  it('continues in the same process, and only the new user turn is written to it', async () => {
    const b = await start();
    const first: Msg[] = [{ role: 'user', content: 'My name is Ada.' }];
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    await expect.poll(async () => (await live(b)).idle).toBe(1);

    const second: Msg[] = [
      ...first,
      { role: 'assistant', content: reply },
      { role: 'user', content: 'What is my name?' },
    ];
    expect(await ask(b, second)).toEqual({ status: 200, text: reply });
    const third: Msg[] = [...second, { role: 'assistant', content: reply }, { role: 'user', content: 'And my age?' }];
    expect(await ask(b, third)).toEqual({ status: 200, text: reply });

    const records = await chatRecords(b);
    expect(records).toHaveLength(1);
    const [rec] = records;
    expect(rec.turns).toEqual(['My name is Ada.', 'What is my name?', 'And my age?']);
    // stdin holds exactly three lines: the first turn, then each new turn alone.
    expect(
      rec
        .stdin!.trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([
      { type: 'user', message: { role: 'user', content: 'My name is Ada.' } },
      { type: 'user', message: { role: 'user', content: 'What is my name?' } },
      { type: 'user', message: { role: 'user', content: 'And my age?' } },
    ]);
    expect(alive(rec.pid)).toBe(true);
    const view = await live(b);
    expect(view).toMatchObject({ live: 1, idle: 1, continued: 2, kept: 3 });
    expect(view.conversations[0]).toMatchObject({ state: 'idle', turns: 3, model: 'claude-sonnet-4-20250514' });
  });

  it('matches an answer re-sent as text blocks, trimmed, with thinking blocks dropped or added', async () => {
    const b = await start({ reply: 'Hello   Ada,\nnice to meet you.' });
    const first: Msg[] = [{ role: 'user', content: 'My name is Ada.' }];
    await ask(b, first);
    const resent: Msg = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'the user said a name', signature: 'sig' },
        { type: 'text', text: 'Hello   Ada,\n' },
        { type: 'text', text: 'nice to meet you.\n' },
      ],
    };
    await ask(b, [
      { role: 'user', content: [{ type: 'text', text: 'My name is Ada.' }] },
      resent,
      { role: 'user', content: 'Again?' },
    ]);
    const records = await chatRecords(b);
    expect(records).toHaveLength(1);
    expect(records[0].turns).toEqual(['My name is Ada.', 'Again?']);
  });

  it('starts fresh when an earlier message changed only in whitespace: the process never saw the new text', async () => {
    const b = await start();
    const first: Msg[] = [{ role: 'user', content: 'Clean with rm -rf /tmp/build' }];
    const answer = await ask(b, first);
    await ask(b, [
      { role: 'user', content: 'Clean with rm -rf / tmp/build' },
      { role: 'assistant', content: answer.text },
      { role: 'user', content: 'Sure?' },
    ]);
    const records = await chatRecords(b);
    expect(records).toHaveLength(2);
    expect(records[1].resumed).toContainEqual({ role: 'user', content: 'Clean with rm -rf / tmp/build' });
    expect(records[0].turns).toEqual(['Clean with rm -rf /tmp/build']);
  });

  it('streams a continued turn like any other', async () => {
    const b = await start();
    const first: Msg[] = [{ role: 'user', content: 'one' }];
    await ask(b, first);
    const res = await postJson(`${b.url}/v1/messages`, {
      model,
      max_tokens: 50,
      stream: true,
      messages: [...first, { role: 'assistant', content: reply }, { role: 'user', content: 'two' }],
    });
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual(
      expect.arrayContaining(['message_start', 'content_block_delta', 'message_stop']),
    );
    const text = events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => (e.data as { delta: { text: string } }).delta.text)
      .join('');
    expect(text).toBe(reply);
    expect((await chatRecords(b))[0].turns).toEqual(['one', 'two']);
  });
});

describe('anything else starts a fresh process with the whole conversation', () => {
  it('an edited history', async () => {
    const b = await start();
    await ask(b, [{ role: 'user', content: 'My name is Ada.' }]);
    await ask(b, [
      { role: 'user', content: 'My name is Grace.' },
      { role: 'assistant', content: reply },
      { role: 'user', content: 'What is my name?' },
    ]);
    const records = await chatRecords(b);
    expect(records).toHaveLength(2);
    expect(records[1].turns).toHaveLength(1);
    expect(records[1].resumed).toContainEqual({ role: 'user', content: 'My name is Grace.' });
    expect(records[1].turns[0]).toContain('What is my name?');
  });

  it('a different earlier answer, a shortened history, another system prompt, another max_tokens', async () => {
    const b = await start();
    const first: Msg[] = [{ role: 'user', content: 'one' }];
    await ask(b, first);
    await ask(b, [...first, { role: 'assistant', content: 'Something else' }, { role: 'user', content: 'two' }]);
    await ask(
      b,
      [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: reply },
        { role: 'user', content: 'two' },
      ],
      { system: 'Be terse.' },
    );
    await ask(
      b,
      [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: reply },
        { role: 'user', content: 'two' },
      ],
      { max_tokens: 51 },
    );
    // The same first turn again (the history shortened back to it) cannot continue a process that answered it.
    await ask(b, first);
    const records = await chatRecords(b);
    expect(records).toHaveLength(5);
    for (const r of records) expect(r.turns).toHaveLength(1);
    expect(records[2].systemPrompt).toBe('Be terse.');
  });

  it('a second request while the conversation is busy (one request at a time per process)', async () => {
    const b = await start({ tokenDelayMs: 100, reply: 'a b c d e f' });
    const first: Msg[] = [{ role: 'user', content: 'one' }];
    await ask(b, first);
    const follow: Msg[] = [...first, { role: 'assistant', content: 'a b c d e f' }, { role: 'user', content: 'two' }];
    const [x, y] = await Promise.all([ask(b, follow), ask(b, follow)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const records = await chatRecords(b);
    expect(records).toHaveLength(2);
    expect(records.map((r) => r.turns.length).sort()).toEqual([1, 2]);
  });
});

describe('a live process ends', () => {
  it('when its client leaves mid-turn', async () => {
    const b = await start({ tokenDelayMs: 100, reply: Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ') });
    const first: Msg[] = [{ role: 'user', content: 'one' }];
    const done = await ask(b, first);
    expect(done.status).toBe(200);
    const [rec] = await chatRecords(b);
    const abort = new AbortController();
    const res = await postJson(
      `${b.url}/v1/messages`,
      {
        model,
        max_tokens: 50,
        stream: true,
        messages: [...first, { role: 'assistant', content: done.text }, { role: 'user', content: 'two' }],
      },
      { signal: abort.signal },
    );
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('w1')) text += new TextDecoder().decode((await reader.read()).value);
    expect((await chatRecords(b))[0].turns).toEqual(['one', 'two']);
    abort.abort();
    await expect.poll(() => alive(rec.pid), { timeout: 5000 }).toBe(false);
    await expect.poll(async () => (await live(b)).live).toBe(0);
  });

  it('when the cap is reached: the least recently used idle one makes room', async () => {
    const b = await start({}, { cliLiveMax: 2 });
    await ask(b, [{ role: 'user', content: 'a' }]);
    await ask(b, [{ role: 'user', content: 'b' }]);
    await ask(b, [{ role: 'user', content: 'c' }]);
    const [a] = await chatRecords(b);
    await expect.poll(() => alive(a.pid), { timeout: 5000 }).toBe(false);
    expect(await live(b)).toMatchObject({ live: 2, evicted: 1 });
  });

  it('CLI_LIVE_MAX bounds every process: warm, busy, idle and waiting for tools; a pending tool call never keeps a new chat from being kept', async () => {
    const b = await start(
      { env: { FAKE_CLI_TOOL_CALLS: '1' } },
      { cliLiveMax: 3, cliPoolSize: 1, cliMaxConcurrent: 4 },
    );
    const tools = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
    const counts: number[] = [];
    const sample = async () => counts.push((await b.cli.alivePids()).length);
    await ask(b, [{ role: 'user', content: 'a' }]);
    await sample();
    await ask(b, [{ role: 'user', content: 'b' }]);
    await sample();
    // Two tool loops stop at their calls: their processes wait for the results.
    for (const q of ['w1', 'w2']) {
      const res = await postJson(`${b.url}/v1/messages`, {
        model,
        max_tokens: 50,
        tools,
        messages: [{ role: 'user', content: q }],
      });
      expect(((await res.json()) as { stop_reason: string }).stop_reason).toBe('tool_use');
      await sample();
    }
    // A new chat at the cap ends the least recently used process nobody reads, and is kept itself.
    await ask(b, [{ role: 'user', content: 'c' }]);
    await sample();
    await new Promise((r) => setTimeout(r, 500)); // the pool's refill, had it been allowed, would have started by now
    await sample();
    expect(Math.max(...counts)).toBeLessThanOrEqual(3);
    const view = await live(b);
    expect(view.live).toBeLessThanOrEqual(3);
    expect(view.conversations.some((c) => c.state === 'idle' && c.turns === 1)).toBe(true);
    const c = (await chatRecords(b)).find((r) => r.turns.includes('c'))!;
    expect(alive(c.pid)).toBe(true);
  });

  it('when its idle lifetime passes', async () => {
    const b = await start({}, { cliLiveIdleMs: 1000 });
    await ask(b, [{ role: 'user', content: 'a' }]);
    const [a] = await chatRecords(b);
    expect(alive(a.pid)).toBe(true);
    await expect.poll(() => alive(a.pid), { timeout: 6000 }).toBe(false);
    expect(await live(b)).toMatchObject({ live: 0, expired: 1 });
  });

  it('when the login changes (the credential file is rewritten)', async () => {
    const credentials = join(process.env.TMPDIR ?? '/tmp', `live-cred-${process.pid}-${Date.now()}.json`);
    await writeFile(credentials, '{}');
    try {
      const b = await start({}, { credentialsPath: credentials });
      await ask(b, [{ role: 'user', content: 'a' }]);
      const [a] = await chatRecords(b);
      expect(alive(a.pid)).toBe(true);
      const later = new Date(Date.now() + 60_000);
      await utimes(credentials, later, later);
      await expect.poll(() => alive(a.pid), { timeout: 8000 }).toBe(false);
      expect(await live(b)).toMatchObject({ live: 0, replaced: 1 });
    } finally {
      await rm(credentials, { force: true });
    }
  });

  it('on stop: closing the proxy ends every live process', async () => {
    const b = await start();
    await ask(b, [{ role: 'user', content: 'a' }]);
    await ask(b, [{ role: 'user', content: 'b' }]);
    const pids = (await chatRecords(b)).map((r) => r.pid);
    expect(pids.every(alive)).toBe(true);
    await b.proxy.close();
    expect(pids.some(alive)).toBe(false);
  });

  it('after a failed turn (never kept)', async () => {
    const b = await start({ scenario: 'e500' });
    const res = await ask(b, [{ role: 'user', content: 'a' }]);
    expect(res.status).toBe(503);
    const [a] = await chatRecords(b);
    await expect.poll(() => alive(a.pid), { timeout: 8000 }).toBe(false);
    expect((await live(b)).kept).toBe(0);
  });
});

describe('the warm pool is the same mechanism with no history', () => {
  it('a warm process answers the first turn and then continues the conversation', async () => {
    const b = await start({}, { cliPoolSize: 1 });
    await ask(b, [{ role: 'user', content: 'warm-up' }]);
    // The pool learned the spec and started a process that waits with no history.
    await expect.poll(async () => (await chatRecords(b)).length, { timeout: 5000 }).toBe(2);
    await ask(b, [{ role: 'user', content: 'one' }]);
    await ask(b, [
      { role: 'user', content: 'one' },
      { role: 'assistant', content: reply },
      { role: 'user', content: 'two' },
    ]);
    const withOne = (await chatRecords(b)).filter((r) => r.turns.includes('one'));
    expect(withOne).toHaveLength(1);
    expect(withOne[0].turns).toEqual(['one', 'two']);
  });
});

describe('a live process that died between turns', () => {
  const first: Msg[] = [{ role: 'user', content: 'My name is Ada.' }];
  const follow: Msg[] = [
    ...first,
    { role: 'assistant', content: reply },
    { role: 'user', content: 'What is my name?' },
  ];

  /** The follow-up went to a second, fresh process whose one turn is the whole conversation. */
  async function answeredAfresh(b: ToolBed): Promise<void> {
    const records = await chatRecords(b);
    expect(records).toHaveLength(2);
    expect(records[0].turns).toEqual(['My name is Ada.', 'What is my name?']);
    expect(records[1].turns).toHaveLength(1);
    expect(records[1].resumed).toContainEqual({ role: 'user', content: 'My name is Ada.' });
    expect(records[1].turns[0]).toContain('What is my name?');
    const view = await live(b);
    // The dead one is gone from the registry; the fresh one is kept for the next turn.
    expect(view).toMatchObject({ live: 1, idle: 1, lost: 1, continued: 0 });
    expect(alive(records[1].pid)).toBe(true);
    const warned = b.proxy.logs().find((l) => String(l.msg).includes('had died between turns'));
    expect(warned).toMatchObject({ level: 40, pid: records[0].pid, requestId: expect.any(String) });
  }

  it('dying on the follow-up before it printed anything: a fresh process answers with the whole conversation', async () => {
    const b = await start({ env: { FAKE_CLI_TURN_SCENARIOS: 'ok,crash' } });
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    await expect.poll(async () => (await live(b)).idle).toBe(1);
    expect(await ask(b, follow)).toEqual({ status: 200, text: reply });
    await answeredAfresh(b);
    // The fresh process continues as a live conversation.
    expect(
      await ask(b, [...follow, { role: 'assistant', content: reply }, { role: 'user', content: 'Thanks.' }]),
    ).toEqual({ status: 200, text: reply });
    expect((await chatRecords(b))[1].turns.slice(1)).toEqual(['Thanks.']);
  });

  it('the same when the follow-up is streamed on the compatible route', async () => {
    const b = await start({ env: { FAKE_CLI_TURN_SCENARIOS: 'ok,crash' } });
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, {
      model,
      max_tokens: 50,
      stream: true,
      messages: follow,
    });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    const chunks = events
      .filter((e) => e.data !== '[DONE]')
      .map((e) => e.data as { error?: unknown; choices: Array<{ delta: { content?: string } }> });
    expect(chunks.some((c) => c.error)).toBe(false);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(reply);
    await answeredAfresh(b);
  });

  it('dying right after message_start on a non-streamed follow-up, before anything of the answer: still replaced', async () => {
    const b = await start({ env: { FAKE_CLI_TURN_SCENARIOS: 'ok,crash-start' } });
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    await expect.poll(async () => (await live(b)).idle).toBe(1);
    expect(await ask(b, follow)).toEqual({ status: 200, text: reply });
    await answeredAfresh(b);
  });

  it('stopped (SIGSTOP) while idle: the follow-up notices it hung, ends it, and a fresh process answers', async () => {
    // The first-event deadline is far away: only the hang watch can answer this request with a fresh process.
    const b = await start({}, { cliFirstTokenTimeoutMs: 60_000 });
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    const [rec] = await chatRecords(b);
    process.kill(rec.pid, 'SIGSTOP');
    try {
      expect(await ask(b, follow)).toEqual({ status: 200, text: reply });
      // The stopped one never read the follow-up; a second process got the whole conversation.
      const records = await chatRecords(b);
      expect(records).toHaveLength(2);
      expect(records[0].turns).toEqual(['My name is Ada.']);
      expect(records[1].resumed).toContainEqual({ role: 'user', content: 'My name is Ada.' });
      expect(await live(b)).toMatchObject({ live: 1, idle: 1, lost: 1, continued: 0 });
      const warned = b.proxy.logs().find((l) => String(l.msg).includes('had died between turns'));
      expect(warned).toMatchObject({ pid: rec.pid, hung: expect.stringMatching(/stopped/) });
      await expect.poll(() => alive(rec.pid), { timeout: 5000 }).toBe(false);
    } finally {
      if (alive(rec.pid)) process.kill(rec.pid, 'SIGKILL');
    }
  }, 30_000);

  it('killed while idle, its exit seen: dropped at once, and the follow-up starts afresh like any other', async () => {
    const b = await start();
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    const [rec] = await chatRecords(b);
    process.kill(rec.pid, 'SIGKILL');
    await expect.poll(async () => (await live(b)).live).toBe(0);
    expect(await ask(b, follow)).toEqual({ status: 200, text: reply });
    const records = await chatRecords(b);
    expect(records).toHaveLength(2);
    expect(records[1].resumed).toContainEqual({ role: 'user', content: 'My name is Ada.' });
    // Nothing was found dead on a follow-up: the registry had already let it go.
    expect(await live(b)).toMatchObject({ live: 1, lost: 0, continued: 0 });
  });

  it('dying after its answer started: an error in the stream, no fresh process', async () => {
    const b = await start({ env: { FAKE_CLI_TURN_SCENARIOS: 'ok,crash-mid' } });
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    const res = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, stream: true, messages: follow });
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'error',
    ]);
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(await chatRecords(b)).toHaveLength(1);
    expect(await live(b)).toMatchObject({ live: 0, lost: 0 });
  });

  it("at most one fresh try: when it fails too, the route family's error shape", async () => {
    const b = await start({ env: { FAKE_CLI_TURN_SCENARIOS: 'ok,crash' } });
    expect(await ask(b, first)).toEqual({ status: 200, text: reply });
    // From now on every new process crashes at start; the live one still runs with the old knobs.
    const wrapper = await readFile(b.cli.path, 'utf8');
    await writeFile(b.cli.path, wrapper.replace(/^exec /m, "export FAKE_CLI_SCENARIO='crash'\nexec "));
    const native = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, messages: follow });
    expect(native.status).toBe(502);
    const body = (await native.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(body.error.message).toMatch(/exited with code 2/);
    // Two processes: the live one that died on the follow-up, and the one fresh try (which crashed at start).
    const records = await chatRecords(b);
    expect(records).toHaveLength(2);
    expect(records[0].turns).toEqual(['My name is Ada.', 'What is my name?']);
    expect(records[1].turns).toEqual([]);
    expect(b.proxy.logs().filter((l) => String(l.msg).includes('had died between turns'))).toHaveLength(1);
    expect(await live(b)).toMatchObject({ live: 0, lost: 1 });
    expect(await b.cli.alivePids()).toEqual([]);

    // The compatible route answers the same failure in its own shape.
    const compat = await postJson(`${b.url}/compat/v1/chat/completions`, { model, max_tokens: 50, messages: follow });
    expect(compat.status).toBe(502);
    expect(((await compat.json()) as { error: { code: string } }).error.code).toBe('bad_gateway');
  });
});

/**
 * A CliBackend over the fake CLI, outside any proxy, with live conversations on, `poolSize` warm processes and its
 * debug log kept (each line tagged with a request id), for the tests that kill a process behind the registry's back.
 */
async function backendBed(prefix: string, poolSize: number) {
  const cli = await makeFakeCli();
  const base = await mkdtemp(join(tmpdir(), prefix));
  const profile = createProfile({});
  const config = validateSettings(
    {
      cliPath: cli.path,
      cliWorkDir: join(base, 'work'),
      dataDir: join(base, 'data'),
      cliLiveMax: 4,
      cliPoolSize: poolSize,
      logLevel: 'debug',
    },
    profile,
  );
  let text = '';
  const logger = createLogger('debug', new Writable({ write: (chunk, _e, cb) => ((text += chunk.toString()), cb()) }));
  const backend = new CliBackend({
    config,
    profile,
    logger: logger.child({ requestId: 'req-test' }),
    findCli: () => ({ path: cli.path, searched: [] }),
    cliEnv: childEnv,
  });
  return {
    cli,
    backend,
    logText: () => text,
    close: async () => {
      await backend.close();
      await cli.cleanup();
      await rm(base, { recursive: true, force: true });
    },
  };
}

/** SIGKILL, then wait (up to 5 s) until the process is a zombie: dead, but node has not reaped it nor seen its exit. */
function killUnreaped(pid: number): void {
  process.kill(pid, 'SIGKILL');
  const until = Date.now() + 5000;
  while (readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2] !== 'Z' && Date.now() < until);
}

describe('a warm process found dead when it is taken', () => {
  it('is replaced by a new process with the whole conversation, not answered with an error', async () => {
    const { cli, backend, logText, close } = await backendBed('warm-dead-', 1);
    const cliModel = 'claude-sonnet-4-20250514';
    const text = async (events: AsyncIterable<NativeStreamEvent>) => {
      let out = '';
      for await (const e of events)
        if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') out += e.delta.text;
      return out;
    };
    try {
      expect(
        await text(
          backend.stream(
            { model: cliModel, max_tokens: 50, messages: [{ role: 'user', content: 'warm-up' }] },
            new AbortController().signal,
          ),
        ),
      ).toBe(reply);
      await expect.poll(() => backend.poolSnapshot().warm, { timeout: 5000 }).toBe(1);
      const chats = async () => await cli.chatRecords();
      await expect.poll(async () => (await chats()).length, { timeout: 5000 }).toBe(2);
      const warm = (await chats()).find((r) => r.turns.length === 0)!;
      // Killed, and not yet reaped: the pool still holds it as alive.
      killUnreaped(warm.pid);
      expect(
        await text(
          backend.stream(
            { model: cliModel, max_tokens: 50, messages: [{ role: 'user', content: 'hello' }] },
            new AbortController().signal,
          ),
        ),
      ).toBe(reply);
      const answeredBy = (await chats()).filter((r) => r.turns.includes('hello'));
      expect(answeredBy).toHaveLength(1);
      expect(answeredBy[0].pid).not.toBe(warm.pid);
      expect(logText()).toContain('the warm assistant CLI had died before its turn');
      expect(backend.liveSnapshot()).toMatchObject({ lost: 1, continued: 0 });
    } finally {
      await close();
    }
  });
});

describe('a live process found dead before the registry saw it exit', () => {
  it('is dropped, and the follow-up is answered by a fresh process with the whole conversation', async () => {
    const { cli, backend, logText, close } = await backendBed('live-dead-', 0);
    const cliModel = 'claude-sonnet-4-20250514';
    const answer = async (
      events: AsyncIterator<NativeStreamEvent>,
      firstOne?: Promise<IteratorResult<NativeStreamEvent>>,
    ) => {
      let text = '';
      for (let r = await (firstOne ?? events.next()); !r.done; r = await events.next()) {
        if (r.value.type === 'content_block_delta' && r.value.delta.type === 'text_delta') text += r.value.delta.text;
      }
      return text;
    };
    try {
      const one = [{ role: 'user' as const, content: 'My name is Ada.' }];
      const first = backend.stream({ model: cliModel, max_tokens: 50, messages: one }, new AbortController().signal);
      expect(await answer(first[Symbol.asyncIterator]())).toBe(reply);
      expect(backend.liveSnapshot()).toMatchObject({ live: 1, idle: 1 });
      const [rec] = await cli.chatRecords();

      // Killed, and not yet reaped: node has not seen the exit, so the registry still lists the process as alive.
      killUnreaped(rec.pid);
      expect(backend.liveSnapshot()).toMatchObject({ live: 1, idle: 1 });
      const two = [
        ...one,
        { role: 'assistant' as const, content: reply },
        { role: 'user' as const, content: 'What is my name?' },
      ];
      const second = backend.stream({ model: cliModel, max_tokens: 50, messages: two }, new AbortController().signal);
      const events = second[Symbol.asyncIterator]();
      // The first step runs up to the continuation's write before the event loop can reap the child.
      const firstOne = events.next();
      expect(await answer(events, firstOne)).toBe(reply);

      const records = await cli.chatRecords();
      expect(records).toHaveLength(2);
      expect(records[1].turns).toHaveLength(1);
      expect(records[1].resumed).toContainEqual({ role: 'user', content: 'My name is Ada.' });
      expect(records[1].turns[0]).toContain('What is my name?');
      const view = backend.liveSnapshot();
      expect(view).toMatchObject({ live: 1, idle: 1, lost: 1, continued: 0 });
      expect(view.conversations.map((c) => c.turns)).toEqual([1]);
      expect(logText()).toContain('had died between turns');
      expect(logText()).toContain('req-test');
    } finally {
      await close();
    }
  });
});
