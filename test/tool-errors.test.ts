// Tool-mode failures, each driven by the fake CLI's recorded scenarios: the right status and wire shape before a
// stream starts, an in-stream error event after it started, and deadlines that answer in seconds.

import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import type { FakeCliKnobs } from './fixtures/fake-cli.js';
import type { Settings } from '../src/proxy/config.js';
import { postJson, readSse, startToolBed, waitFor, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const chat = { model, messages: [{ role: 'user', content: 'say hi' }] };
const native = { model, max_tokens: 50, messages: [{ role: 'user', content: 'say hi' }] };

let bed: ToolBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});
async function start(knobs: FakeCliKnobs, settings: Settings = {}, env: Record<string, string> = {}): Promise<ToolBed> {
  bed = await startToolBed(knobs, { cliMaxRetries: 1, ...settings }, env);
  return bed;
}

type CompatError = { error: { message: string; type: string; code: string } };
type NativeError = { type: 'error'; error: { type: string; message: string } };

describe('failures before the answer starts keep their HTTP status', () => {
  it('e401: 401 that says to log in again (compat and native shapes)', async () => {
    const b = await start({ scenario: 'e401' });
    const compat = await postJson(`${b.url}/compat/v1/chat/completions`, chat);
    expect(compat.status).toBe(401);
    const cbody = (await compat.json()) as CompatError;
    expect(cbody.error.code).toBe('invalid_api_key');
    expect(cbody.error.message).toMatch(/log in with the CLI/i);
    const nat = await postJson(`${b.url}/v1/messages`, { ...native, stream: true });
    expect(nat.status).toBe(401);
    const nbody = (await nat.json()) as NativeError;
    expect(nbody.error.type).toBe('authentication_error');
    expect(nbody.error.message).toMatch(/log in with the CLI/i);
  });

  it('nokey (not logged in at all): 401 with the login remedy', async () => {
    const b = await start({ scenario: 'nokey' });
    const res = await postJson(`${b.url}/v1/chat/completions`, native);
    expect(res.status).toBe(401);
    expect(((await res.json()) as NativeError).error.message).toMatch(/log in with the CLI/i);
  });

  it('e429: 429 with Retry-After, streaming or not', async () => {
    const b = await start({ scenario: 'e429' });
    for (const stream of [false, true]) {
      const res = await postJson(`${b.url}/compat/v1/chat/completions`, { ...chat, stream });
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(((await res.json()) as CompatError).error.code).toBe('rate_limit_exceeded');
    }
  });

  it.each(['e500', 'e529'] as const)('%s: 503 (provider failure or overload, never a 429)', async (scenario) => {
    const b = await start({ scenario });
    const res = await postJson(`${b.url}/v1/messages`, native);
    expect(res.status).toBe(503);
    expect(((await res.json()) as NativeError).error.type).toBe('service_unavailable_error');
  });

  it('crash: 502 (an upstream failed, not our bug) naming the exit code and what the CLI said', async () => {
    const b = await start({ scenario: 'crash' });
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, chat);
    expect(res.status).toBe(502);
    const body = (await res.json()) as CompatError;
    expect(body.error.code).toBe('bad_gateway');
    expect(body.error.message).toMatch(/exited with code 2/);
    expect(body.error.message).toMatch(/simulated crash/);
  });

  it('the official OpenAI SDK sees the 401 as an AuthenticationError', async () => {
    const b = await start({ scenario: 'e401' });
    const client = new OpenAI({ baseURL: `${b.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    await expect(
      client.chat.completions.create(chat as OpenAI.ChatCompletionCreateParamsNonStreaming),
    ).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
  });

  it('an unusable working directory is a 500 naming CLI_WORKDIR, its path in the log alone', async () => {
    const b = await start({}, { cliWorkDir: '/dev/null/owner-private-workdir' });
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, chat);
    expect(res.status).toBe(500);
    const message = ((await res.json()) as CompatError).error.message;
    expect(message).toMatch(/CLI_WORKDIR/);
    // Any local caller gets this answer; the path (under the owner's home, in real life) is for the owner's log.
    expect(message).not.toContain('owner-private-workdir');
    expect(b.proxy.logText()).toContain('CLI_WORKDIR: /dev/null/owner-private-workdir');
    expect(await b.cli.chatRecords()).toEqual([]);
  });

  it('a missing CLI is a 503 with the install remedy', async () => {
    const b = await start({}, { cliPath: '/nonexistent/assistant-cli' });
    const res = await postJson(`${b.url}/v1/messages`, native);
    expect(res.status).toBe(503);
    const body = (await res.json()) as NativeError;
    expect(body.error.message).toMatch(/not found/);
    expect(body.error.message).toMatch(/ASSISTANT_CLI_PATH/);
  });
});

describe('failures after the answer started become an error event in the stream', () => {
  it('crash-mid on the compat stream: chunks, then an error chunk, then [DONE]', async () => {
    const b = await start({ scenario: 'crash-mid', reply: 'one two three' });
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, { ...chat, stream: true });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    const last = events.at(-1)!;
    const error = events.at(-2)!.data as CompatError;
    expect(last.data).toBe('[DONE]');
    expect(error.error.code).toBe('bad_gateway');
    expect(error.error.message).toMatch(/exited with code 1/);
    // No finish chunk claims a normal end.
    expect(
      events.some((e) => (e.data as { choices?: Array<{ finish_reason: string | null }> }).choices?.[0]?.finish_reason),
    ).toBe(false);
    await waitFor(() => b.proxy.logText().includes('"errorType":"bad_gateway"'), 2000);
    expect(b.proxy.logText()).toContain('"errorType":"bad_gateway"');
  });

  it('crash-mid on the native message stream: an `event: error` after the first delta', async () => {
    const b = await start({ scenario: 'crash-mid' });
    const res = await postJson(`${b.url}/v1/messages`, { ...native, stream: true });
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'error',
    ]);
    expect(events.at(-1)!.data).toMatchObject({ type: 'error', error: { type: 'api_error' } });
  });

  it('crash-mid on the native chat stream: a data-only error event, then [DONE]', async () => {
    const b = await start({ scenario: 'crash-mid' });
    const res = await postJson(`${b.url}/v1/chat/completions`, { ...native, stream: true });
    const events = await readSse(res);
    expect(events.at(-2)!.data).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    expect(events.at(-1)!.data).toBe('[DONE]');
  });

  it('the official OpenAI SDK stream throws on the in-stream error', async () => {
    const b = await start({ scenario: 'crash-mid' });
    const client = new OpenAI({ baseURL: `${b.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const stream = await client.chat.completions.create({
      ...chat,
      stream: true,
    } as OpenAI.ChatCompletionCreateParamsStreaming);
    await expect(
      (async () => {
        for await (const _chunk of stream) void _chunk;
      })(),
    ).rejects.toThrow(/exited with code 1/);
  });
});

describe('noise and deadlines', () => {
  it('garbage lines are ignored (and logged) and the answer still arrives', async () => {
    const b = await start({ scenario: 'garbage' });
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, chat);
    expect(res.status).toBe(200);
    expect(
      ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content,
    ).toBe('Hi from fake!');
    expect(b.proxy.logText()).toMatch(/unparseable line from the assistant CLI/);
  });

  it("ecut: the CLI's own fallback after a cut stream still answers (without token streaming)", async () => {
    const b = await start({ scenario: 'ecut' });
    const res = await postJson(`${b.url}/v1/messages`, { ...native, stream: true });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(events[2].data).toMatchObject({ delta: { type: 'text_delta', text: 'Hi from fake!' } });
  });

  it('hang: a 504 within the first-token deadline, and the child is ended', async () => {
    const b = await start({ scenario: 'hang' }, { cliFirstTokenTimeoutMs: 300 });
    const res = await postJson(`${b.url}/v1/messages`, native);
    expect(res.status).toBe(504);
    const body = (await res.json()) as NativeError;
    expect(body.error.type).toBe('timeout_error');
    expect(body.error.message).toMatch(/did not start answering within 0\.3 s/);
    expect(await waitFor(async () => (await b.cli.alivePids()).length === 0)).toBe(true);
  });

  it('a stream that stalls after it started ends with a timeout event at the request deadline', async () => {
    const b = await start({ reply: 'a b c d e f', tokenDelayMs: 2000 }, { requestTimeoutMs: 400 });
    const res = await postJson(`${b.url}/compat/v1/chat/completions`, { ...chat, stream: true });
    expect(res.status).toBe(200);
    const events = await readSse(res);
    expect(events.at(-2)!.data).toMatchObject({ error: { code: 'timeout' } });
    expect((events.at(-2)!.data as CompatError).error.message).toMatch(/REQUEST_TIMEOUT_MS/);
    expect(await waitFor(async () => (await b.cli.alivePids()).length === 0)).toBe(true);
  });

  it('retrying: the child gets the bounded retry setting, and a CLI still retrying at the deadline is a 503', async () => {
    const b = await start(
      { scenario: 'retrying', retryDelayMs: 5000 },
      { cliMaxRetries: 2, cliFirstTokenTimeoutMs: 500 },
    );
    const res = await postJson(`${b.url}/v1/messages`, native);
    expect(res.status).toBe(503);
    expect(((await res.json()) as NativeError).error.message).toMatch(/still retrying/);
    const [record] = await b.cli.chatRecords();
    expect(record.env.CLAUDE_CODE_MAX_RETRIES).toBe('2');
  });

  it("overrides a user's own unbounded retry setting", async () => {
    const b = await start(
      { scenario: 'retrying', retryDelayMs: 0 },
      { cliMaxRetries: 0 },
      { CLAUDE_CODE_MAX_RETRIES: '10', PROXY_ACCESS_KEY: 'a-secret-of-the-proxy' },
    );
    const res = await postJson(`${b.url}/v1/messages`, native);
    expect(res.status).toBe(503);
    const [record] = await b.cli.chatRecords();
    expect(record.env.CLAUDE_CODE_MAX_RETRIES).toBe('0');
    // The proxy's own access key is not the CLI's business.
    expect(record.envKeys).not.toContain('PROXY_ACCESS_KEY');
  });
});
