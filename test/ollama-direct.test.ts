// The Ollama listener with OLLAMA_MODE=direct (docs/ollama.md): chats go to the provider API (the simulator) with
// the CLI's login, images and sampling settings included; the official ollama client and the openai SDK on /v1.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const model = 'assistant-sonnet-4-20250514';
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const fileToken = 'sk-ant-oat01-ollama-direct-abcdef123456';

let sim: Simulator;
let proxy: TestProxy;
let dir: string;
let client: Ollama;

beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'ollama-direct-'));
  const credentialsPath = await writeCliCredentials(dir, { accessToken: fileToken, refreshToken: 'sk-ant-ort01-x-abcdef123456', expiresAt: Date.now() + 3_600_000 });
  proxy = await startProxy({ apiBaseUrl: sim.url, credentialsPath, oauthTokenUrl: sim.cliTokenUrl, ollamaPort: 0, ollamaMode: 'direct', modes: ['direct'] });
  const status = proxy.proxy.ollama();
  if (status.state !== 'listening') throw new Error(status.state);
  client = new Ollama({ host: status.url });
});

afterAll(async () => {
  await proxy?.close();
  await sim?.close();
  await rm(dir, { recursive: true, force: true });
});

beforeEach(() => sim.reset());

describe('the Ollama API in direct mode', () => {
  it('claims vision, and sends an image and the sampling settings to the provider with the CLI\'s login', async () => {
    expect((await client.show({ model })).capabilities).toContain('vision');
    const answer = await client.chat({ model, stream: false, messages: [{ role: 'user', content: 'What is this?', images: [png] }], options: { temperature: 0.4, num_predict: 300 } });
    expect(answer.message.content).toBe('Hi from the simulator!');
    expect(answer.prompt_eval_count).toBeGreaterThan(0);
    const [sent] = sim.requests('/v1/messages');
    expect(sent.headers.authorization).toBe(`Bearer ${fileToken}`);
    const body = sent.json as { model: string; max_tokens: number; temperature: number; messages: Array<{ content: Array<{ type: string; source?: { media_type: string } }> }> };
    expect(body).toMatchObject({ max_tokens: 300, temperature: 0.4 });
    expect(body.messages[0].content[0]).toMatchObject({ type: 'image', source: { media_type: 'image/png' } });
  });

  it('streams a chat with a tool call, and generates, as NDJSON', async () => {
    const calls = [];
    let done;
    for await (const part of await client.chat({
      model,
      messages: [{ role: 'user', content: 'weather?' }],
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } } }],
    })) {
      calls.push(...(part.message.tool_calls ?? []));
      if (part.done) done = part;
    }
    expect(calls).toHaveLength(1);
    expect(calls[0].function.name).toBe('get_weather');
    expect(done).toMatchObject({ done: true, done_reason: 'stop' });
    let text = '';
    for await (const part of await client.generate({ model: `${model}:latest`, prompt: 'Say hi', stream: true })) text += part.response;
    expect(text).toBe('Hi from the simulator!');
    expect((sim.requests('/v1/messages').at(-1)!.json as { model: string }).model).not.toContain(':latest');
  });

  it('tells a provider failure in Ollama\'s shape', async () => {
    sim.knobs.failWith = { status: 429, retryAfter: 7 };
    const res = await fetch(`${(proxy.proxy.ollama() as { url: string }).url}/api/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model, stream: false, messages: [{ role: 'user', content: 'x' }] }) });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(Object.keys((await res.json()) as object)).toEqual(['error']);
  });

  it('serves the openai SDK on /v1 in direct mode', async () => {
    const openai = new OpenAI({ baseURL: `${(proxy.proxy.ollama() as { url: string }).url}/v1`, apiKey: 'ollama', maxRetries: 0 });
    const completion = await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello' }] });
    expect(completion.choices[0].message.content).toBe('Hi from the simulator!');
  });
});
