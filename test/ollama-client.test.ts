// The Ollama listener (docs/ollama.md) with the official `ollama` npm client, in tool mode over the fake CLI
// (test/fixtures/fake-cli.mjs, acting as an MCP client for the tool calls): list, show, chat streamed and whole, a
// tool call whose result is answered by the same CLI process, generate, and the API's edges in Ollama's own shape.

import { Ollama } from 'ollama';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const weather = {
  type: 'function',
  function: {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string', description: 'the city' } },
      required: ['city'],
    },
  },
};
/** The smallest PNG there is: 1x1, transparent. */
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

function ollamaUrl(bed: ToolBed): string {
  const status = bed.proxy.proxy.ollama();
  if (status.state !== 'listening') throw new Error(`the Ollama listener is ${status.state}`);
  return status.url;
}

async function chats(bed: ToolBed) {
  return await bed.cli.chatRecords();
}

describe('the Ollama API with the official ollama client (tool mode)', () => {
  let bed: ToolBed;
  let client: Ollama;
  let url: string;
  beforeAll(async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } }, { ollamaPort: 0 });
    url = ollamaUrl(bed);
    client = new Ollama({ host: url });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('lists the catalog with list() and ps(), and tells a version clients accept', async () => {
    const list = await client.list();
    const names = list.models.map((m) => m.name);
    expect(names).toContain(model);
    // The same catalog as the main port's model list, in the same order.
    const main = (await (await fetch(`${bed.url}/v1/models`)).json()) as { data: Array<{ id: string }> };
    expect(names).toEqual(main.data.map((m) => m.id));
    const ps = await client.ps();
    expect(ps.models.map((m) => m.name)).toEqual(names);
    const version = (await (await fetch(`${url}/api/version`)).json()) as { version: string };
    const [major, minor, patch] = version.version.split('.').map(Number);
    expect(major * 1e6 + minor * 1e3 + patch).toBeGreaterThanOrEqual(6004); // 0.6.4, Copilot's minimum
    const root = await fetch(`${url}/`);
    expect(await root.text()).toMatch(/^Ollama is running/);
  });

  it("shows a model with its capabilities and context length, and refuses an unknown one in Ollama's shape", async () => {
    const show = await client.show({ model });
    expect(show.capabilities).toEqual(expect.arrayContaining(['completion', 'tools']));
    // Images of a user message reach the CLI (docs/ollama.md): tool mode claims vision too.
    expect(show.capabilities).toContain('vision');
    const info = show.model_info as unknown as Record<string, unknown>;
    expect(info[`${String(info['general.architecture'])}.context_length`]).toBe(200_000);
    // A tag names the same model.
    expect((await client.show({ model: `${model}:latest` })).capabilities).toContain('tools');
    await expect(client.show({ model: 'llama3:8b' })).rejects.toMatchObject({
      status_code: 404,
      error: expect.stringMatching(/The model 'llama3:8b' is not available/),
    });
    const raw = await postJson(`${url}/api/show`, { model: 'nope' });
    expect(raw.status).toBe(404);
    expect(Object.keys((await raw.json()) as object)).toEqual(['error']);
  });

  it("chats whole and streamed, with the provider's token counts", async () => {
    const whole = await client.chat({ model, messages: [{ role: 'user', content: 'Hello there' }], stream: false });
    expect(whole.message).toMatchObject({ role: 'assistant', content: 'Hi from fake!' });
    expect(whole.done).toBe(true);
    expect(whole.done_reason).toBe('stop');
    expect(whole.model).toBe(model);
    expect(whole.prompt_eval_count).toBeGreaterThan(0);
    expect(whole.eval_count).toBeGreaterThan(0);

    const parts: string[] = [];
    let last: Awaited<ReturnType<typeof client.chat>> | undefined;
    for await (const part of await client.chat({
      model,
      messages: [{ role: 'user', content: 'Hello again' }],
      stream: true,
    })) {
      parts.push(part.message.content);
      last = part;
    }
    // Token by token, never merged, then the done line.
    expect(parts.filter(Boolean).length).toBeGreaterThan(1);
    expect(parts.join('')).toBe('Hi from fake!');
    expect(last).toMatchObject({ done: true, done_reason: 'stop' });
    expect(last!.eval_count).toBe(whole.eval_count);
    expect(last!.total_duration).toBeGreaterThan(0);
  });

  it('generates whole and streamed', async () => {
    const whole = await client.generate({ model, prompt: 'Say hi', stream: false });
    expect(whole).toMatchObject({ response: 'Hi from fake!', done: true, done_reason: 'stop' });
    let text = '';
    for await (const part of await client.generate({ model, prompt: 'Say hi', system: 'Be brief', stream: true }))
      text += part.response;
    expect(text).toBe('Hi from fake!');
  });

  it('hands out a tool call, and answers its result from the same CLI process', async () => {
    const before = (await chats(bed)).length;
    const messages: Array<Record<string, unknown>> = [{ role: 'user', content: 'What is the weather in Paris?' }];
    const first = await client.chat({ model, messages: messages as never, tools: [weather] as never, stream: false });
    const calls = first.message.tool_calls ?? [];
    expect(calls).toHaveLength(1);
    expect(calls[0].function).toMatchObject({ name: 'get_weather', arguments: { city: 'Paris' } });
    expect(first.done_reason).toBe('stop');
    const second = await client.chat({
      model,
      tools: [weather] as never,
      stream: false,
      messages: [...messages, first.message, { role: 'tool', content: 'sunny', tool_name: 'get_weather' }] as never,
    });
    expect(second.message.content).toBe('The tool said: sunny');
    expect(second.message.tool_calls ?? []).toHaveLength(0);
    expect((await chats(bed)).length).toBe(before + 1);
  });

  it('streams a tool call as one line with the whole arguments', async () => {
    const calls = [];
    for await (const part of await client.chat({
      model,
      messages: [{ role: 'user', content: 'weather?' }],
      tools: [weather] as never,
      stream: true,
    })) {
      calls.push(...(part.message.tool_calls ?? []));
    }
    expect(calls).toHaveLength(1);
    expect(calls[0].function).toMatchObject({ name: 'get_weather', arguments: { city: 'Paris' } });
  });

  it("names what tool mode cannot honour in the client's own words, and passes images on to the CLI", async () => {
    const res = await postJson(`${url}/api/chat`, {
      model,
      stream: false,
      messages: [{ role: 'user', content: 'Hello' }],
      options: { temperature: 0.2, num_ctx: 8192, num_predict: 100 },
      keep_alive: '5m',
    });
    expect(res.status).toBe(200);
    expect(
      res.headers
        .get('x-proxy-ignored-params')
        ?.split(',')
        .map((s) => s.trim())
        .sort(),
    ).toEqual(['keep_alive', 'options.num_ctx', 'options.temperature']);
    const images = await postJson(`${url}/api/chat`, {
      model,
      stream: false,
      messages: [{ role: 'user', content: 'What is this?', images: [png] }],
    });
    // Images go to the CLI as image blocks of the user message (docs/tool-mode.md "The conversation on stdin").
    expect(images.status).toBe(200);
    const last = (await chats(bed)).at(-1)!;
    expect(last.stdin).toContain('"type":"image"');
    const bad = await postJson(`${url}/api/chat`, {
      model,
      stream: false,
      messages: [{ role: 'user', content: 'x', images: ['bm90IGFuIGltYWdl'] }],
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({ error: expect.stringContaining('messages.0.images.0') });
  });

  it('answers a chat with no messages as Ollama does (the model "loads"), without starting a CLI', async () => {
    const before = (await chats(bed)).length;
    const res = await client.chat({ model, messages: [], stream: false });
    expect(res).toMatchObject({ done: true, done_reason: 'load' });
    expect((await chats(bed)).length).toBe(before);
  });

  it("refuses what a local runtime does and this server cannot, in Ollama's error shape", async () => {
    await expect(client.pull({ model: 'llama3', stream: false })).rejects.toMatchObject({
      status_code: 404,
      error: expect.stringMatching(/not supported by this server/),
    });
    await expect(client.delete({ model })).rejects.toMatchObject({
      error: expect.stringMatching(/not supported by this server/),
    });
    for (const path of ['/api/push', '/api/create', '/api/embed']) {
      const res = await postJson(`${url}${path}`, { model });
      expect(res.status).toBe(404);
      expect((await res.json()) as object).toEqual({ error: expect.stringMatching(/not supported by this server/) });
    }
    const unknown = await fetch(`${url}/api/nothing`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: expect.stringContaining('Unknown endpoint GET /api/nothing') });
    const malformed = await postJson(`${url}/api/chat`, { messages: [] });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({ error: expect.stringContaining('model') });
  });

  it("counts every request in the log under the listener's own routes, and leaves the main port's routes alone", async () => {
    const logs = bed.proxy.logs().filter((l) => l.msg === 'request');
    const routes = new Set(logs.map((l) => l.route));
    for (const route of [
      '/ollama/api/tags',
      '/ollama/api/show',
      '/ollama/api/chat',
      '/ollama/api/generate',
      '/ollama/api/version',
    ])
      expect(routes).toContain(route);
    // The main port does not serve Ollama's API.
    const main = await fetch(`${bed.url}/api/tags`);
    expect(main.status).toBe(404);
  });
});

describe('an Ollama client that leaves mid-answer', () => {
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed(
      { reply: 'one two three four five six seven eight nine ten', tokenDelayMs: 300 },
      { ollamaPort: 0 },
    );
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('frees the CLI child, whether it streamed or waited for the whole answer, and is still counted', async () => {
    const url = ollamaUrl(bed);
    const client = new Ollama({ host: url });
    const stream = await client.chat({ model, messages: [{ role: 'user', content: 'Count' }], stream: true });
    try {
      for await (const part of stream) {
        // Leaves after the first token, as the client's stop button does.
        if (part.message.content) stream.abort();
      }
    } catch {
      // the client library reports its own abort
    }
    const whole = new AbortController();
    const timer = setTimeout(() => whole.abort(), 700);
    await fetch(`${url}/api/generate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model, prompt: 'Count', stream: false }),
      signal: whole.signal,
    }).then(
      (res) => res.text(),
      () => undefined,
    );
    clearTimeout(timer);
    await expect.poll(async () => (await bed.cli.alivePids()).length, { timeout: 5000 }).toBe(0);
    const gone = bed.proxy
      .logs()
      .filter((l) => l.msg === 'request' && String(l.route).startsWith('/ollama/api/'))
      .filter((l) => l.clientGone === true);
    expect(gone.map((l) => l.route).sort()).toEqual(['/ollama/api/chat', '/ollama/api/generate']);
  });
});
