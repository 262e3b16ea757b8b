// The Ollama listener as a port of the proxy (docs/ollama.md): Copilot's Ollama provider's request sequence
// (test/__fixtures__/copilot-ollama-sequence.json), the openai SDK on the port's /v1, a port already taken (a real
// Ollama running), and the same guards, access key, shared rate limit and ledger as the main listener.

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ollama } from 'ollama';
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { freePort } from './helpers/free-port.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { postJson, readSse, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';

interface Step {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: Record<string, unknown>;
  eachModel?: boolean;
}
const copilot = JSON.parse(
  readFileSync(new URL('./__fixtures__/copilot-ollama-sequence.json', import.meta.url), 'utf8'),
) as { headers: Record<string, string>; steps: Step[] };

/** The Ollama port's base URL, of a tool bed or a test proxy. */
function ollamaUrl(of: ToolBed | TestProxy): string {
  const status = 'cli' in of ? of.proxy.proxy.ollama() : of.proxy.ollama();
  if (status.state !== 'listening') throw new Error(`the Ollama listener is ${status.state}`);
  return status.url;
}

function fill(value: unknown, model: string): unknown {
  return JSON.parse(JSON.stringify(value).replaceAll('{model}', model));
}

const blockers: Server[] = [];
afterEach(async () => {
  for (const b of blockers.splice(0)) await new Promise((r) => b.close(r));
});

async function takePort(): Promise<number> {
  const blocker = createServer();
  blockers.push(blocker);
  await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
  return (blocker.address() as { port: number }).port;
}

describe("Copilot's Ollama provider, request by request (tool mode)", () => {
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed({ env: { FAKE_CLI_TOOL_CALLS: '1' } }, { ollamaPort: 0 });
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('passes the version gate, lists the models with tools and a context window, and chats on /v1 with usage', async () => {
    const url = ollamaUrl(bed);
    const send = (step: Step, model = '') =>
      fetch(`${url}${step.path}`, {
        method: step.method,
        headers: { ...copilot.headers, ...(step.body ? { 'content-type': 'application/json' } : {}), ...step.headers },
        body: step.body ? JSON.stringify(fill(step.body, model)) : undefined,
      });
    const [version, tags, show, ask, agent] = copilot.steps;

    // The gate: the extension refuses a server below 0.6.4, comparing the dotted numbers.
    const v = ((await (await send(version)).json()) as { version: string }).version.split('.').map(Number);
    expect(v[0] * 1e6 + v[1] * 1e3 + (v[2] ?? 0)).toBeGreaterThanOrEqual(6004);

    // Every listed `model` is shown; each claims tools, and names its context length where the extension reads it.
    const listed = ((await (await send(tags)).json()) as { models: Array<{ model: string }> }).models.map(
      (m) => m.model,
    );
    expect(listed).toContain(model);
    for (const id of listed) {
      const res = await send(show, id);
      expect(res.status, id).toBe(200);
      const details = (await res.json()) as { capabilities: string[]; model_info: Record<string, unknown> };
      expect(details.capabilities, id).toContain('tools');
      const arch = details.model_info['general.architecture'];
      // Each model's own window: 200K for most, 1M for Opus 4.7 and later (docs/models.md).
      expect([200_000, 1_000_000], id).toContain(details.model_info[`${String(arch)}.context_length`]);
      expect(details.model_info['general.basename'], id).toBe(id);
    }

    // A chat: OpenAI chunks on /v1, token by token, then the usage chunk the extension asked for.
    const chat = await send(ask, model);
    expect(chat.status).toBe(200);
    const events = await readSse(chat);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events
      .filter((e) => e.data !== '[DONE]')
      .map(
        (e) =>
          e.data as {
            choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
            usage?: { completion_tokens: number };
          },
      );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('Hi from fake!');
    expect(chunks.at(-1)?.usage?.completion_tokens).toBeGreaterThan(0);
    // What the CLI cannot take is named, as on the main port.
    expect(chat.headers.get('x-proxy-ignored-params')).toMatch(/temperature/);

    // The agent's request: its tool is called through the CLI and streamed as OpenAI tool_calls.
    const withTools = await readSse(await send(agent, model));
    const deltas = withTools
      .filter((e) => e.data !== '[DONE]')
      .flatMap(
        (e) =>
          (
            e.data as {
              choices: Array<{
                delta: { tool_calls?: Array<{ function?: { name?: string; arguments?: string } }> };
                finish_reason: string | null;
              }>;
            }
          ).choices,
      );
    expect(deltas.flatMap((c) => c.delta.tool_calls ?? []).find((t) => t.function?.name)?.function?.name).toBe(
      'get_weather',
    );
    expect(
      JSON.parse(
        deltas
          .flatMap((c) => c.delta.tool_calls ?? [])
          .map((t) => t.function?.arguments ?? '')
          .join(''),
      ),
    ).toEqual({ city: 'Paris' });
    expect(deltas.at(-1)?.finish_reason).toBe('tool_calls');
  });

  it("serves the openai SDK on the port's /v1: the model list, a whole chat and a stream", async () => {
    const client = new OpenAI({ baseURL: `${ollamaUrl(bed)}/v1`, apiKey: 'ollama', maxRetries: 0 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toContain(model);
    expect((await client.models.retrieve(`${model}:latest`)).id).toBe(model);
    const whole = await client.chat.completions.create({ model, messages: [{ role: 'user', content: 'Hello' }] });
    expect(whole.choices[0].message.content).toBe('Hi from fake!');
    expect(whole.model).toBe(model);
    let text = '';
    for await (const chunk of await client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    })) {
      text += chunk.choices[0]?.delta.content ?? '';
    }
    expect(text).toBe('Hi from fake!');
    // An unknown model is the compatible format's 404 on /v1.
    await expect(
      client.chat.completions.create({ model: 'llama3', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });
});

describe('a port already taken', () => {
  it('is one clear line and a state; the main listener still runs', async () => {
    const port = await takePort();
    const proxy = await startProxy({ ollamaPort: port, modes: ['tool'] });
    try {
      expect(proxy.proxy.ollama()).toMatchObject({ state: 'port-in-use', port });
      const lines = proxy.logs().filter((l) => String(l.msg).includes('Ollama port'));
      expect(lines).toHaveLength(1);
      expect(lines[0].msg).toMatch(
        new RegExp(
          `Ollama port ${port} is already in use on 127\\.0\\.0\\.1 \\(is Ollama itself running\\?\\).*--ollama-port or OLLAMA_PORT`,
        ),
      );
      expect((await fetch(`${proxy.url}/v1/models`)).status).toBe(200);
      // Health says so too, for a monitor or a support question.
      const health = JSON.stringify(await (await fetch(`${proxy.url}/health/detailed`)).json());
      expect(health).toContain(`"ollama_api":{"state":"port-in-use","port":${port}`);
    } finally {
      await proxy.close();
    }
  });
});

describe('a port already taken, with npm run serve', () => {
  it('says so in one line of the start-up summary and serves on the main port', async () => {
    const taken = await takePort();
    const port = await freePort();
    const dataDir = mkdtempSync(join(tmpdir(), 'ollama-serve-'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/cli.ts', '--ollama-port', String(taken)], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        PORT: String(port),
        MODES: 'tool',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    try {
      for (let i = 0; i < 150 && !stderr.includes('Stop with Ctrl-C'); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(stderr).toContain(`listening on http://127.0.0.1:${port}`);
      const lines = stderr.split('\n').filter((l) => l.includes('Ollama'));
      expect(lines).toEqual([
        `  Ollama API: Ollama port ${taken} is already in use on 127.0.0.1 (is Ollama itself running?); the Ollama API is off, the proxy runs on. Choose another port with --ollama-port or OLLAMA_PORT.`,
      ]);
      expect((await fetch(`http://127.0.0.1:${port}/v1/models`)).status).toBe(200);
    } finally {
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('the same guards, key, rate limit and ledger as the main listener', () => {
  it("asks for the access key, in Ollama's shape; the root stays open", async () => {
    const key = 'ollama-access-key-0123456789';
    const proxy = await startProxy({ ollamaPort: 0, accessKey: key, modes: ['tool'] });
    try {
      const url = ollamaUrl(proxy);
      const refused = await fetch(`${url}/api/tags`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ error: expect.stringContaining('PROXY_ACCESS_KEY') });
      expect((await fetch(`${url}/api/tags`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
      const client = new Ollama({ host: url, headers: { authorization: `Bearer ${key}` } });
      expect((await client.list()).models.length).toBeGreaterThan(0);
      expect((await fetch(`${url}/`)).status).toBe(200);
      expect(proxy.logText()).not.toContain(key);
    } finally {
      await proxy.close();
    }
  });

  it('refuses a web page of another origin and a foreign Host before any work', async () => {
    const proxy = await startProxy({ ollamaPort: 0, modes: ['tool'] });
    try {
      const url = ollamaUrl(proxy);
      const page = await postJson(
        `${url}/api/chat`,
        { model, messages: [{ role: 'user', content: 'x' }] },
        { headers: { 'content-type': 'application/json', origin: 'https://evil.example' } },
      );
      expect(page.status).toBe(403);
      expect(Object.keys((await page.json()) as object)).toEqual(['error']);
      // A page that rebinds its own name to 127.0.0.1 still sends that name as Host (fetch cannot set Host).
      const rebound = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          {
            host: '127.0.0.1',
            port: new URL(url).port,
            path: '/api/tags',
            headers: { host: 'evil.example:11434' },
            agent: false,
          },
          (res) => {
            let body = '';
            res.on('data', (c: Buffer) => (body += c.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(rebound.status).toBe(403);
      expect(JSON.parse(rebound.body)).toEqual({ error: expect.any(String) });
    } finally {
      await proxy.close();
    }
  });

  it('draws on one rate limit per client across both ports', async () => {
    const proxy = await startProxy({ ollamaPort: 0, modes: ['tool'], rateLimitPerMinute: 2, rateLimitBurst: 0 });
    try {
      const url = ollamaUrl(proxy);
      expect((await fetch(`${proxy.url}/v1/models`)).status).toBe(200);
      expect((await fetch(`${url}/api/tags`)).status).toBe(200);
      const third = await fetch(`${url}/api/version`);
      expect(third.status).toBe(429);
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(await third.json()).toEqual({ error: expect.stringContaining('Rate limit exceeded') });
    } finally {
      await proxy.close();
    }
  });

  it("records every request in the ledger under the listener's own routes and the client's family", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ollama-ledger-'));
    const ledger = UsageLedger.open({ dataDir: dir, retentionDays: 36_500, maxMb: 64 });
    const proxy = await startProxy({ ollamaPort: 0, modes: ['tool'], rateLimitPerMinute: 10_000 }, { usage: ledger });
    try {
      const client = new Ollama({ host: ollamaUrl(proxy) });
      await client.list();
      await client.show({ model });
      await expect(client.pull({ model: 'llama3', stream: false })).rejects.toBeDefined();
      const rows = ledger.requests().rows;
      const byRoute = new Map(rows.map((r) => [r.route, r]));
      expect(byRoute.get('/ollama/api/tags')).toMatchObject({ client: 'ollama-js', status: 200, method: 'GET' });
      expect(byRoute.get('/ollama/api/show')).toMatchObject({ client: 'ollama-js', modelRequested: model });
      expect(byRoute.get('/ollama/api/pull')).toMatchObject({ status: 404, errorType: 'not_found' });
    } finally {
      await proxy.close();
      ledger.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
