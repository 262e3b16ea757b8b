// A real CLI binary given as ASSISTANT_CLI_PATH works without code changes (docs/tool-mode.md). This test runs the real
// assistant CLI (the vendor's published package) through the proxy, pointed at the provider simulator on
// 127.0.0.1 through the CLI's own base-URL variable and an OAuth credential file in a temporary HOME, so nothing
// reaches a real provider. The binary is large and is not a dependency of this project: the test runs when
// it is present (REAL_ASSISTANT_CLI, or the test set-up's cache) and is
// skipped with that reason otherwise. `npm run test:setup` puts the pinned version in .cache/real-cli.

import { existsSync, readdirSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProfile, toNeutralModel } from '../src/proxy/profile.js';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';
import { realCliEnv, realCliPath, realCliPresent } from './helpers/real-cli.js';

// `npm run test:setup` installs the pinned CLI into .cache/real-cli; REAL_ASSISTANT_CLI points elsewhere.
const cliPath = realCliPath;
const present = realCliPresent('tool-real-cli.test');

describe.skipIf(!present)('tool mode with the real assistant CLI', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let home: string;
  let ledger: UsageLedger;

  beforeAll(async () => {
    sim = await startSimulator({
      knobs: { replyText: 'Hello from the simulator through the real CLI', answerTools: false },
    });
    home = await mkdtemp(join(tmpdir(), 'real-cli-home-'));
    const configDir = join(home, '.claude');
    await mkdir(configDir, { recursive: true });
    await writeCliCredentials(configDir, {
      accessToken: 'sk-ant-oat01-real-cli-test',
      refreshToken: 'sk-ant-ort01-real-cli-test',
      expiresAt: Date.now() + 3_600_000,
    });
    ledger = UsageLedger.open({ dataDir: join(home, 'data'), retentionDays: 30, maxMb: 16 });
    proxy = await startProxy(
      {
        cliPath,
        cliWorkDir: join(home, 'work'),
        modes: ['tool'],
        cliFirstTokenTimeoutMs: 60_000,
        rateLimitPerMinute: 1000,
      },
      {
        deps: {
          childEnv: realCliEnv(home, sim.url),
        },
        usage: ledger,
      },
    );
  }, 60_000);

  afterAll(async () => {
    await proxy?.close();
    ledger?.close();
    await sim?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  it('reports the real CLI healthy, with its version and the OAuth login, in /health/detailed', async () => {
    const res = await fetch(`${proxy.url}/health/detailed`, { headers: proxy.owner });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body.components.assistant_cli).toMatchObject({
      status: 'healthy',
      path: cliPath,
      version: expect.stringMatching(/^\d+\.\d+\.\d+$/),
      authenticated: true,
    });
    expect(body.components.authentication).toMatchObject({ status: 'healthy', logged_in: true });
  });

  it('answers the OpenAI SDK, streamed and not, with the upstream text', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy' });
    const done = await client.chat.completions.create({
      model: 'assistant-sonnet-4-20250514',
      messages: [{ role: 'user', content: 'say hi' }],
    });
    expect(done.choices[0].message.content).toBe('Hello from the simulator through the real CLI');
    expect(done.choices[0].finish_reason).toBe('stop');
    expect(done.usage?.completion_tokens).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({
      model: 'assistant-sonnet-4-20250514',
      stream: true,
      messages: [{ role: 'user', content: 'say hi' }],
    });
    const parts: string[] = [];
    for await (const chunk of stream) parts.push(chunk.choices[0]?.delta?.content ?? '');
    expect(parts.join('')).toBe('Hello from the simulator through the real CLI');
    expect(parts.filter(Boolean).length).toBeGreaterThan(1);
    // The CLI called the simulator with the OAuth token from the credential file.
    const calls = sim.requests('/v1/messages');
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(calls.at(-1)!.headers.authorization).toBe('Bearer sk-ant-oat01-real-cli-test');
  }, 120_000);

  it("streams to the native SDK and carries a conversation's earlier turns to the provider", async () => {
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy' });
    const stream = client.messages.stream({
      model: 'assistant-sonnet-4-20250514',
      max_tokens: 200,
      messages: [
        { role: 'user', content: 'My favourite colour is ultramarine.' },
        { role: 'assistant', content: 'Noted: ultramarine.' },
        { role: 'user', content: 'What is my favourite colour?' },
      ],
    });
    const message = await stream.finalMessage();
    expect(message.content[0]).toMatchObject({ type: 'text', text: 'Hello from the simulator through the real CLI' });
    const sent = JSON.stringify(sim.requests('/v1/messages').at(-1)!.json);
    expect(sent).toContain('ultramarine');
    expect(sent).toContain('Noted: ultramarine.');
    expect(sent).toContain('What is my favourite colour?');
  }, 120_000);

  it("passes a user message's image on to the provider (the OpenAI SDK's image_url, a data URL)", async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy' });
    const pixel = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
    const done = await client.chat.completions.create({
      model: 'assistant-sonnet-4-6',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is in this picture?' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${pixel}` } },
          ],
        },
      ],
    });
    expect(done.choices[0].message.content).toBe('Hello from the simulator through the real CLI');
    const sent = sim.requests('/v1/messages').at(-1)!.json as { messages: { content: unknown }[] };
    expect(sent.messages.at(-1)!.content).toContainEqual(
      expect.objectContaining({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: pixel } }),
    );
  }, 120_000);

  it("passes a Responses client's file on as a document, and the provider's citation back as an annotation", async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/v1`, apiKey: 'dummy' });
    const notes = `data:text/plain;base64,${Buffer.from('The launch moved to March.').toString('base64')}`;
    const input: OpenAI.Responses.ResponseInput = [
      {
        role: 'user',
        content: [
          { type: 'input_file', filename: 'notes.txt', file_data: notes },
          { type: 'input_text', text: 'When is the launch?' },
        ],
      },
    ];
    const cited = { type: 'file_citation', filename: 'notes.txt', quote: 'The launch moved to March.' };
    const whole = await client.responses.create({ model: 'assistant-sonnet-4-6', input });
    const sent = sim.requests('/v1/messages').at(-1)!.json as { messages: { content: unknown }[] };
    expect(sent.messages.at(-1)!.content).toContainEqual(
      expect.objectContaining({ type: 'document', title: 'notes.txt', citations: { enabled: true } }),
    );
    const part = (whole.output[0] as OpenAI.Responses.ResponseOutputMessage).content[0];
    expect(part).toMatchObject({ annotations: [expect.objectContaining(cited)] });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const e of await client.responses.create({ model: 'assistant-sonnet-4-6', input, stream: true }))
      events.push(e);
    expect(events.find((e) => e.type === 'response.output_text.annotation.added')).toMatchObject({
      annotation: expect.objectContaining(cited),
    });
  }, 120_000);

  it('shows the subscription windows the provider reported through the CLI (rate_limit_event) in the usage limits', async () => {
    const reset5h = Math.floor(Date.now() / 1000) + 2 * 3600;
    sim.knobs.quotaHeaders = {
      'anthropic-ratelimit-unified-status': 'allowed',
      'anthropic-ratelimit-unified-5h-utilization': '0.18',
      'anthropic-ratelimit-unified-5h-reset': String(reset5h),
      'anthropic-ratelimit-unified-5h-status': 'allowed',
      'anthropic-ratelimit-unified-7d-utilization': '0.23',
      'anthropic-ratelimit-unified-7d-reset': String(reset5h + 5 * 86_400),
      'anthropic-ratelimit-unified-7d-status': 'allowed',
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
    };
    try {
      const client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy' });
      await client.messages.create({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      });
      const limits = (await (await fetch(`${proxy.url}/usage/limits`, { headers: proxy.owner })).json()) as {
        windows: Array<{ source: string; window: string; utilization: number }>;
      };
      const cli = limits.windows.filter((w) => w.source === 'cli');
      expect(cli.map((w) => [w.window, w.utilization])).toEqual(expect.arrayContaining([['five_hour', 0.18]]));
    } finally {
      delete sim.knobs.quotaHeaders;
    }
  }, 120_000);

  it("honours max_tokens: the real CLI sends the client's limit to the provider (the output-limit variable)", async () => {
    const client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy' });
    const res = await client.messages.create({
      model: 'assistant-sonnet-4-20250514',
      max_tokens: 77,
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(res.content[0]).toMatchObject({ type: 'text' });
    expect((sim.requests('/v1/messages').at(-1)!.json as { max_tokens: number }).max_tokens).toBe(77);
  }, 120_000);

  it('names the model the provider received, not the one asked for, in every chunk and whole answer', async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    // The CLI itself may send another model upstream than the one it was given (2.1.330 sends its newest opus for
    // this older dated one): the answer names what the provider received, in the neutral naming.
    const asked = 'assistant-opus-4-20250514';
    const done = await client.chat.completions.create({ model: asked, messages: [{ role: 'user', content: 'hi' }] });
    const upstream = (sim.requests('/v1/messages').at(-1)!.json as { model: string }).model;
    const neutral = toNeutralModel(createProfile(), upstream);
    expect(done.model).toBe(neutral);
    const stream = await client.chat.completions.create({
      model: asked,
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const models: string[] = [];
    for await (const chunk of stream) models.push(chunk.model);
    expect(models.length).toBeGreaterThan(1);
    expect(new Set(models)).toEqual(new Set([neutral]));
    // A provider that answers with yet another model than it was sent: the CLI reports the provider's.
    sim.knobs.answerModel = 'claude-opus-4-1-20250805';
    try {
      const native = await new Anthropic({ baseURL: proxy.url, apiKey: 'dummy', maxRetries: 0 }).messages.create({
        model: asked,
        max_tokens: 50,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(native.model).toBe('assistant-opus-4-1-20250805');
      const chat = await client.chat.completions.create({ model: asked, messages: [{ role: 'user', content: 'hi' }] });
      expect(chat.model).toBe('assistant-opus-4-1-20250805');
    } finally {
      delete sim.knobs.answerModel;
    }
  }, 120_000);

  it("maps the provider's refusals, seen through the real CLI, to faithful statuses within seconds", async () => {
    const client = new OpenAI({ baseURL: `${proxy.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
    const ask = () =>
      client.chat.completions
        .create({ model: 'assistant-sonnet-4-20250514', messages: [{ role: 'user', content: 'say hi' }] })
        .catch((e: unknown) => e);
    sim.knobs.failWith = { status: 401 };
    const unauthorized = await ask();
    expect(unauthorized).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((unauthorized as Error).message).toMatch(/log in with the CLI/i);
    sim.knobs.failWith = { status: 529 };
    const overloaded = await ask();
    expect(overloaded).toBeInstanceOf(OpenAI.APIError);
    expect((overloaded as InstanceType<typeof OpenAI.APIError>).status).toBe(503);
    sim.knobs.failWith = undefined;
  }, 120_000);
  it('answers from a warm pooled CLI that waited longer than the CLI waits for a text prompt (its stream-json input waits)', async () => {
    const pooled = await startProxy(
      {
        cliPath,
        cliWorkDir: join(home, 'work-pool'),
        modes: ['tool'],
        cliFirstTokenTimeoutMs: 60_000,
        rateLimitPerMinute: 1000,
        cliPoolSize: 1,
      },
      {
        deps: {
          childEnv: realCliEnv(home, sim.url),
        },
      },
    );
    try {
      const client = new Anthropic({ baseURL: pooled.url, apiKey: 'dummy', maxRetries: 0 });
      const ask = () =>
        client.messages.create({
          model: 'assistant-sonnet-4-20250514',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'say hi' }],
        });
      await ask();
      const poolOf = async () =>
        (
          (await (await fetch(`${pooled.url}/health/detailed`)).json()) as {
            components: { cli_pool: { warm: number; hits: number } };
          }
        ).components.cli_pool;
      await expect.poll(async () => (await poolOf()).warm, { timeout: 20_000 }).toBe(1);
      // The real CLI reading a text prompt gives up after 3 s of silence on stdin; a pooled one must outlive that.
      await new Promise((r) => setTimeout(r, 4_000));
      const second = await ask();
      expect(second.content).toEqual([
        expect.objectContaining({ type: 'text', text: 'Hello from the simulator through the real CLI' }),
      ]);
      expect((await poolOf()).hits).toBe(1);
    } finally {
      await pooled.close();
    }
  }, 90_000);
});

// Isolation, lean children, thinking and live conversations with the real CLI (docs/tool-mode.md): a HOME holding
// the user's own CLI set-up (hooks that write marker files, a user MCP server that writes one when started, a memory
// file with a marker text). A control run with CLI_USER_SETUP=on shows that set-up is live; by default none of it
// runs or is sent, no transcript is written, and the simulator's recorded bodies show what the provider receives.
describe.skipIf(!present)('tool mode with the real assistant CLI: isolated, lean, live', () => {
  let sim: Simulator;
  let home: string;
  const memoryMarker = 'MEMORY-MARKER-7f3a: always mention pineapples.';

  async function userSetup(dir: string): Promise<void> {
    const configDir = join(dir, '.claude');
    await writeCliCredentials(configDir, {
      accessToken: 'sk-ant-oat01-real-cli-test',
      refreshToken: 'sk-ant-ort01-real-cli-test',
      expiresAt: Date.now() + 3_600_000,
    });
    const hook = (name: string) => [{ hooks: [{ type: 'command', command: `touch ${join(dir, name)}` }] }];
    await writeFile(
      join(configDir, 'settings.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: hook('prompt-hook-ran'), SessionStart: hook('session-hook-ran') } }),
    );
    await writeFile(join(configDir, 'CLAUDE.md'), `${memoryMarker}\n`);
    await writeFile(
      join(dir, '.claude.json'),
      JSON.stringify({
        hasCompletedOnboarding: true,
        mcpServers: {
          marker: { type: 'stdio', command: 'sh', args: ['-c', `touch ${join(dir, 'mcp-ran')}; sleep 30`] },
        },
      }),
    );
  }

  function transcripts(dir: string): string[] {
    const projects = join(dir, '.claude', 'projects');
    return existsSync(projects) ? readdirSync(projects, { recursive: true }).map(String) : [];
  }

  const bodies = () =>
    sim.requests('/v1/messages').map((r) => ({ bytes: r.body.length, json: r.json as Record<string, any> }));

  beforeAll(async () => {
    sim = await startSimulator({
      knobs: { replyText: 'Hello from the simulator through the real CLI', answerTools: false },
    });
    home = await mkdtemp(join(tmpdir(), 'real-cli-iso-'));
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  async function proxyFor(dir: string, settings: Record<string, unknown> = {}): Promise<TestProxy> {
    const profile = createProfile();
    // Only what the user's own shell would give: no variable of ours beyond the simulator's address.
    return startProxy(
      {
        cliPath,
        cliWorkDir: join(dir, 'work'),
        dataDir: join(dir, 'data'),
        modes: ['tool'],
        cliFirstTokenTimeoutMs: 60_000,
        rateLimitPerMinute: 1000,
        ...settings,
      },
      {
        deps: { childEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, [profile.cli.baseUrlEnv]: sim.url } },
      },
    );
  }

  it("control: with CLI_USER_SETUP on, the user's hooks, MCP server and memory file are live", async () => {
    const dir = join(home, 'control');
    await userSetup(dir);
    const proxy = await proxyFor(dir, { cliUserSetup: true });
    try {
      sim.reset();
      const client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy', maxRetries: 0 });
      await client.messages.create({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Say hi' }],
      });
      expect(existsSync(join(dir, 'prompt-hook-ran'))).toBe(true);
      expect(existsSync(join(dir, 'mcp-ran'))).toBe(true);
      expect(JSON.stringify(bodies().map((b) => b.json))).toContain('MEMORY-MARKER-7f3a');
      expect(transcripts(dir).some((f) => f.endsWith('.jsonl'))).toBe(true);
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('by default: none of it runs or is sent, no transcript is written, the body is small, a follow-up continues the live process', async () => {
    const dir = join(home, 'isolated');
    await userSetup(dir);
    const proxy = await proxyFor(dir, { cliLiveMax: 2 });
    try {
      sim.reset();
      const client = new Anthropic({ baseURL: proxy.url, apiKey: 'dummy', maxRetries: 0 });
      const first = await client.messages.create({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Say hi' }],
      });
      const answer = (first.content[0] as { text: string }).text;
      await client.messages.create({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 64,
        messages: [
          { role: 'user', content: 'Say hi' },
          { role: 'assistant', content: answer },
          { role: 'user', content: 'And once more' },
        ],
      });
      expect(existsSync(join(dir, 'prompt-hook-ran'))).toBe(false);
      expect(existsSync(join(dir, 'session-hook-ran'))).toBe(false);
      expect(existsSync(join(dir, 'mcp-ran'))).toBe(false);
      expect(transcripts(dir)).toEqual([]);
      // Two chats, two provider calls and no side request (the CLI's telemetry and checks are off).
      expect(sim.received.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
        'POST /v1/messages',
        'POST /v1/messages',
      ]);
      const [one, two] = bodies();
      expect(JSON.stringify([one.json, two.json])).not.toContain('MEMORY-MARKER-7f3a');
      // Lean: no tool definitions, the short default system prompt, no thinking nobody asked for.
      expect(one.bytes).toBeLessThan(4000);
      expect(one.json.tools ?? []).toEqual([]);
      expect(JSON.stringify(one.json.system)).toContain('You are a helpful assistant.');
      expect(one.json.thinking).toEqual({ type: 'disabled' });
      // The follow-up went to the same process: the provider received the structured history, not a transcript.
      expect(two.json.messages.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'user']);
      expect(JSON.stringify(two.json.messages[1])).toContain(answer);
      expect(JSON.stringify(two.json.messages[2])).toContain('And once more');
      expect(JSON.stringify(two.json.messages)).not.toContain('<turn role=');
      const health = (await (await fetch(`${proxy.url}/health/detailed`)).json()) as {
        components: { cli_conversations: { continued: number; live: number } };
      };
      expect(health.components.cli_conversations).toMatchObject({ continued: 1, live: 1 });
    } finally {
      await proxy.close();
    }
  }, 120_000);

  it('thinks only when asked, with the budget below max_tokens; max_tokens 100 with thinking asked is answered without it', async () => {
    const dir = join(home, 'thinking');
    await userSetup(dir);
    const proxy = await proxyFor(dir);
    try {
      sim.reset();
      const ask = (body: Record<string, unknown>) =>
        fetch(`${proxy.url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'assistant-sonnet-4-20250514',
            messages: [{ role: 'user', content: 'hi' }],
            ...body,
          }),
        });
      const asked = await ask({ max_tokens: 5000, thinking: { type: 'enabled', budget_tokens: 2000 } });
      expect(asked.status).toBe(200);
      expect(bodies().at(-1)!.json.thinking).toMatchObject({ type: 'enabled', budget_tokens: 2000 });
      const small = await ask({ max_tokens: 100, thinking: { type: 'enabled', budget_tokens: 2000 } });
      expect(small.status).toBe(200);
      expect(small.headers.get('x-proxy-ignored-params')).toContain('thinking');
      expect(bodies().at(-1)!.json).toMatchObject({ max_tokens: 100, thinking: { type: 'disabled' } });
      const compat = await fetch(`${proxy.url}/compat/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'assistant-sonnet-4-20250514',
          max_tokens: 3000,
          reasoning_effort: 'medium',
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      expect(compat.status).toBe(200);
      expect(bodies().at(-1)!.json.thinking).toMatchObject({ type: 'enabled', budget_tokens: 2999 });
    } finally {
      await proxy.close();
    }
  }, 120_000);
});
