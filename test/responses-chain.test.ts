// Responses that chain by id (docs/responses-store.md), with the official OpenAI SDK as the client: direct mode
// against the provider simulator, tool mode against the fake CLI. A chained request's input is the earlier
// responses' input and output plus its new items, whole and streamed; kept responses are read and removed by id,
// owner-only on disk and kept across a restart; store:false keeps nothing; an unknown id is the provider's
// previous_response_not_found; a history that contradicts the id is refused. In tool mode a chained request
// continues the live CLI process that answered the previous response, and starts fresh from the stored chain when
// that process is gone.

import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const model = 'assistant-sonnet-4-20250514';
type StreamEvent = OpenAI.Responses.ResponseStreamEvent;

async function completed(stream: AsyncIterable<StreamEvent>): Promise<OpenAI.Responses.Response> {
  let last: StreamEvent | undefined;
  for await (const event of stream) last = event;
  expect(last?.type).toBe('response.completed');
  return (last as OpenAI.Responses.ResponseCompletedEvent).response;
}

describe('direct mode: previous_response_id on /api/v1/responses', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let dir: string;
  let dataDir: string;
  let credentialsPath: string;
  const start = () =>
    startProxy({ apiBaseUrl: sim.url, credentialsPath, oauthTokenUrl: sim.cliTokenUrl, dataDir, modes: ['direct'] });
  beforeAll(async () => {
    sim = await startSimulator();
    dir = await mkdtemp(join(tmpdir(), 'responses-chain-'));
    dataDir = join(dir, 'data');
    credentialsPath = await writeCliCredentials(dir, {
      accessToken: 'sk-ant-oat01-chain-file-abcdef123456',
      refreshToken: 'sk-ant-ort01-x-abcdef123456',
      expiresAt: Date.now() + 3_600_000,
    });
    proxy = await start();
  });
  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => sim.reset());
  const openai = () => new OpenAI({ apiKey: 'dummy', baseURL: `${proxy.url}/api/v1`, maxRetries: 0 });
  const upstreamMessages = () => sim.requests('/v1/messages').map((r) => (r.json as { messages: unknown[] }).messages);

  it('chains whole and streamed: the provider gets the earlier input and output plus the new items', async () => {
    const first = await openai().responses.create({ model, input: 'Hello?' });
    expect(first.id).toMatch(/^resp_[0-9a-f]{48}$/);
    expect((first as unknown as { store: boolean }).store).toBe(true);
    const second = await openai().responses.create({ model, input: 'And then?', previous_response_id: first.id });
    expect(second.previous_response_id).toBe(first.id);
    const third = await completed(
      await openai().responses.create({
        model,
        input: [{ role: 'user', content: 'Last one.' }],
        previous_response_id: second.id,
        stream: true,
      }),
    );
    expect(third.previous_response_id).toBe(second.id);
    const text = (t: string) => ({ role: 'user', content: [{ type: 'text', text: t }] });
    // The newest turn carries direct mode's cache mark (docs/direct-mode.md "The prompt cache"); the stored history
    // does not keep it.
    const newest = (t: string) => ({
      role: 'user',
      content: [{ type: 'text', text: t, cache_control: { type: 'ephemeral' } }],
    });
    const answer = { role: 'assistant', content: [{ type: 'text', text: first.output_text }] };
    expect(upstreamMessages()[1]).toEqual([text('Hello?'), answer, newest('And then?')]);
    expect(upstreamMessages()[2]).toEqual([
      text('Hello?'),
      answer,
      text('And then?'),
      { role: 'assistant', content: [{ type: 'text', text: second.output_text }] },
      newest('Last one.'),
    ]);
  });

  it('reads and removes a kept response by id; store:false keeps nothing', async () => {
    const kept = await openai().responses.create({ model, input: 'Keep me.' });
    expect((await openai().responses.retrieve(kept.id)).output_text).toBe(kept.output_text);
    const deleted = await fetch(`${proxy.url}/api/v1/responses/${kept.id}`, { method: 'DELETE' });
    expect(await deleted.json()).toEqual({ id: kept.id, object: 'response', deleted: true });
    const gone = await fetch(`${proxy.url}/api/v1/responses/${kept.id}`);
    expect(gone.status).toBe(404);
    expect(((await gone.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');

    const unkept = await openai().responses.create({ model, input: 'Forget me.', store: false });
    expect((unkept as unknown as { store: boolean }).store).toBe(false);
    expect((await fetch(`${proxy.url}/api/v1/responses/${unkept.id}`)).status).toBe(404);
    const chained = await postJson(`${proxy.url}/api/v1/responses`, {
      model,
      input: 'x',
      previous_response_id: unkept.id,
    });
    expect(chained.status).toBe(400);
    expect(await chained.json()).toMatchObject({
      error: { code: 'previous_response_not_found', param: 'previous_response_id' },
    });
    expect(sim.requests('/v1/messages')).toHaveLength(2);
  });

  it('refuses an id sent with a history that contradicts it, before any provider call', async () => {
    const first = await openai().responses.create({ model, input: 'Hello?' });
    const resend = await postJson(`${proxy.url}/api/v1/responses`, {
      model,
      previous_response_id: first.id,
      input: [{ role: 'user', content: 'Hello?' }, ...first.output, { role: 'user', content: 'Again' }],
    });
    expect(resend.status).toBe(400);
    expect(((await resend.json()) as { error: { param: string } }).error.param).toBe('input.1');
    const stray = await postJson(`${proxy.url}/api/v1/responses`, {
      model,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: 'call_nowhere', output: 'x' }],
    });
    expect(stray.status).toBe(400);
    expect(((await stray.json()) as { error: { param: string } }).error.param).toBe('input.0.call_id');
    expect(sim.requests('/v1/messages')).toHaveLength(1);
  });

  it('keeps responses owner-only on disk and across a restart', async () => {
    const first = await openai().responses.create({ model, input: 'Before the restart.' });
    await proxy.close();
    proxy = await start();
    const after = await openai().responses.create({ model, input: 'After.', previous_response_id: first.id });
    expect(after.status).toBe('completed');
    expect(upstreamMessages()[1]).toHaveLength(3);
    const store = join(dataDir, 'responses');
    expect((await stat(store)).mode & 0o777).toBe(0o700);
    const files = await readdir(store);
    expect(files).toContain(`${first.id}.json`);
    for (const f of files) expect((await stat(join(store, f))).mode & 0o777).toBe(0o600);
  });
});

describe('tool mode: previous_response_id continues the live CLI process', () => {
  let bed: ToolBed | undefined;
  afterEach(async () => {
    await bed?.close();
    bed = undefined;
  });
  // The runs that served a chat: not the one that learns what the CLI announces for a fresh start's transcript.
  const chatRecords = (b: ToolBed) => b.cli.chatRecords();

  it('writes only the new turn to the process that answered, whole and streamed', async () => {
    const b = (bed = await startToolBed({}, { cliLiveMax: 4 }));
    const client = new OpenAI({ apiKey: 'dummy', baseURL: `${b.url}/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model, input: 'one' });
    const second = await completed(
      await client.responses.create({ model, input: 'two', previous_response_id: first.id, stream: true }),
    );
    const third = await client.responses.create({ model, input: 'three', previous_response_id: second.id });
    const records = await chatRecords(b);
    expect(records).toHaveLength(1);
    expect(records[0].turns).toEqual(['one', 'two', 'three']);
    // A chained process keeps no history to compare: the whole conversation resent without the id starts afresh.
    await client.responses.create({
      model,
      input: [
        { role: 'user', content: 'one' },
        ...first.output,
        { role: 'user', content: 'two' },
        ...second.output,
        { role: 'user', content: 'three' },
        ...third.output,
        { role: 'user', content: 'four' },
      ] as OpenAI.Responses.ResponseInput,
    });
    expect(await chatRecords(b)).toHaveLength(2);
  });

  it('hands tool output to the waiting process by id, and starts fresh from the stored chain once it is gone', async () => {
    const b = (bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } }, { cliLiveMax: 4 }));
    const client = () => new OpenAI({ apiKey: 'dummy', baseURL: `${b.url}/v1`, maxRetries: 0 });
    const tools: OpenAI.Responses.Tool[] = [
      {
        type: 'function',
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
        strict: false,
      },
    ];
    const first = await client().responses.create({ model, tools, input: 'Weather in Paris?' });
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await client().responses.create({
      model,
      tools,
      previous_response_id: first.id,
      input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
    });
    expect(second.output_text).toBe('The tool said: sunny');
    expect(await chatRecords(b)).toHaveLength(1);

    // A proxy restart ends every CLI process; the chain is still in the store.
    const settings = { cliLiveMax: 4 };
    const { dataDir } = b;
    await b.proxy.close();
    const again = await startProxy(
      { ...settings, cliPath: b.cli.path, cliWorkDir: b.workDir, dataDir, modes: ['tool'] },
      { deps: { childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp' } } },
    );
    try {
      const third = await new OpenAI({ apiKey: 'dummy', baseURL: `${again.url}/v1`, maxRetries: 0 }).responses.create({
        model,
        tools,
        previous_response_id: second.id,
        input: 'Thanks!',
      });
      expect(third.status).toBe('completed');
      const records = await chatRecords(b);
      expect(records).toHaveLength(2);
      // The fresh process resumed the whole stored conversation, then got the new turn.
      expect(JSON.stringify(records[1].resumed)).toContain('Weather in Paris?');
      expect(records[1].turns.at(-1)).toBe('Thanks!');
    } finally {
      await again.close();
    }
  });
});
