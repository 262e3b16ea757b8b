// A CLI that dies mid-turn (docs/tool-mode.md "A CLI that dies mid-turn"), with the fake CLI, whose `killed-mid`
// turn prints its first content and then is ended by SIGKILL, as a process killed from outside is. A client that reads
// the answer whole has been sent nothing: a fresh process answers it from the whole conversation, once. A streamed
// client that has been sent content gets its format's error event. Neither is a 500: a CLI's death is an upstream's
// failure (502).

import { afterEach, describe, expect, it } from 'vitest';
import type { FakeCliKnobs, FakeCliRecord } from './fixtures/fake-cli.js';
import { postJson, readSse, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const reply = 'Hi from fake!';
const first = [{ role: 'user' as const, content: 'My name is Ada.' }];
const follow = [...first, { role: 'assistant' as const, content: reply }, { role: 'user' as const, content: 'And?' }];
let bed: ToolBed | undefined;

afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

/** Live conversations on; each process's turns follow `turns` (FAKE_CLI_TURN_SCENARIOS). */
async function start(turns: string, knobs: FakeCliKnobs = {}): Promise<ToolBed> {
  bed = await startToolBed({ env: { FAKE_CLI_TURN_SCENARIOS: turns }, ...knobs }, { cliLiveMax: 4 });
  return bed;
}

/** The CLI runs that served a chat: not the one that learns what the CLI announces for a fresh start. */
async function chatRecords(b: ToolBed): Promise<FakeCliRecord[]> {
  return b.cli.chatRecords();
}

/** The request lines the proxy logged for `path`: one per request, whatever happened inside it. */
const requestLines = (b: ToolBed, path: string) => b.proxy.logs().filter((l) => l.msg === 'request' && l.path === path);

async function lost(b: ToolBed): Promise<number> {
  const body = (await (await fetch(`${b.url}/health/detailed`)).json()) as {
    components: { cli_conversations: { lost: number } };
  };
  return body.components.cli_conversations.lost;
}

describe('a live CLI killed mid-turn', () => {
  it('answers a client reading the answer whole from a fresh process with the whole conversation, once', async () => {
    const b = await start('ok,killed-mid');
    const answer = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, messages: first });
    expect(answer.status).toBe(200);
    await answer.json();
    const res = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, messages: follow });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { content: Array<{ text: string }>; stop_reason: string };
    // The fresh process's answer alone: nothing of the killed turn's first words is mixed in.
    expect(body.content.map((c) => c.text).join('')).toBe(reply);
    expect(body.stop_reason).toBe('end_turn');
    const records = await chatRecords(b);
    expect(records).toHaveLength(2);
    expect(records[0].turns).toEqual(['My name is Ada.', 'And?']);
    expect(records[1].resumed).toContainEqual({ role: 'user', content: 'My name is Ada.' });
    expect(await lost(b)).toBe(1);
    // One request, counted once, a success.
    await expect.poll(() => requestLines(b, '/v1/messages').length).toBe(2);
    expect(requestLines(b, '/v1/messages').map((l) => l.status)).toEqual([200, 200]);
    const warned = b.proxy.logs().find((l) => l.how === 'continued' && l.signal === 'SIGKILL');
    expect(warned).toMatchObject({ pid: records[0].pid });
  });

  it('ends a stream that has sent content with the format error event, a 502-class failure, no fresh process', async () => {
    const b = await start('ok,killed-mid');
    await (await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, messages: first })).json();
    const res = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, stream: true, messages: follow });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    // The first words went out; then the error event, with no made-up end of the message.
    expect(events.map((e) => e.event).slice(-2)).toEqual(['content_block_delta', 'error']);
    expect(events.some((e) => e.event === 'message_stop')).toBe(false);
    expect(events.at(-1)!.data).toMatchObject({
      type: 'error',
      error: { type: 'api_error', message: expect.stringMatching(/ended by SIGKILL without finishing its answer/) },
    });
    expect(await chatRecords(b)).toHaveLength(1);
    await expect.poll(() => requestLines(b, '/v1/messages').length).toBe(2);
    expect(requestLines(b, '/v1/messages').at(-1)).toMatchObject({ errorType: 'api_error' });
  });

  it('the compatible stream: an error chunk then [DONE]', async () => {
    const b = await start('ok,killed-mid');
    const compat = { model, messages: first };
    await (await postJson(`${b.url}/compat/v1/chat/completions`, compat)).json();
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, { model, messages: follow, stream: true });
    const events = await readSse(res);
    expect(events.at(-1)!.data).toBe('[DONE]');
    expect(events.at(-2)!.data).toMatchObject({ error: { code: 'bad_gateway' } });
  });
});

describe('a fresh CLI killed mid-turn', () => {
  it('is replaced once; when the replacement is killed too, the client gets 502 in its route shape, no loop', async () => {
    // Every process's first turn is killed.
    const b = await start('killed-mid');
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, { model, messages: first });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('bad_gateway');
    expect(body.error.message).toMatch(/The assistant CLI was ended by SIGKILL without finishing its answer/);
    expect(await chatRecords(b)).toHaveLength(2);
    expect(await b.cli.alivePids()).toEqual([]);
    await expect.poll(() => requestLines(b, '/compat/v1/chat/completions').length).toBe(1);
  });

  it('that exits by itself mid-answer is not tried again: 502 naming its exit code', async () => {
    const b = await start('crash-mid');
    const res = await postJson(`${b.url}/v1/messages`, { model, max_tokens: 50, messages: first });
    expect(res.status).toBe(502);
    const body = (await res.json()) as { type: string; error: { type: string; message: string } };
    expect(body).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(body.error.message).toMatch(/exited with code 1 without finishing its answer/);
    expect(await chatRecords(b)).toHaveLength(1);
  });
});
