// Tool mode answering through the fake CLI in every format: JSON and streams, the official SDKs as clients, the
// whole conversation reaching the CLI, and what the child process is given.

import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageRecord, UsageSink } from '../src/proxy/usage/types.js';
import { makeFakeCli } from './fixtures/fake-cli.js';
import { startProxy } from './helpers/proxy.js';
import { childEnv, postJson, readSse, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

let bed: ToolBed;
beforeAll(async () => {
  // A tool that touches no file: chats stay keyless (a file tool would need the access key, docs/security.md).
  bed = await startToolBed(
    {},
    { cliMaxRetries: 3, cliAllowedTools: ['WebSearch'], cliDisallowedTools: ['Bash', 'WebFetch'] },
  );
});
afterAll(async () => {
  await bed?.close();
});

const model = 'assistant-sonnet-4-20250514';
// The fake replies "Hi from fake!" as the tokens "Hi ", "from ", "fake!"; input tokens = words of the prompt.
const reply = 'Hi from fake!';

describe('official OpenAI SDK against /compat/v1', () => {
  const client = () => new OpenAI({ baseURL: `${bed.url}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });

  it('gets the CLI text with finish_reason and usage', async () => {
    const completion = await client().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'say hi' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe(model);
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(Number.isInteger(completion.created) && completion.created < 1e11).toBe(true);
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: reply });
    expect(completion.choices[0].finish_reason).toBe('stop');
    // The fake counts the prompt's words (2) and the default system prompt's (profile.cli.defaultSystemPrompt, 5).
    expect(completion.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });

  it('streams token by token with one id, a final finish_reason and usage', async () => {
    const stream = await client().chat.completions.create({
      model,
      messages: [{ role: 'user', content: 'say hi' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const texts = chunks.flatMap((c) => (c.choices[0]?.delta.content ? [c.choices[0].delta.content] : []));
    expect(texts).toEqual(['Hi ', 'from ', 'fake!']);
    const withReason = chunks.filter((c) => c.choices[0]?.finish_reason);
    expect(withReason).toHaveLength(1);
    expect(withReason[0].choices[0].finish_reason).toBe('stop');
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 });
  });
});

describe('official native SDK', () => {
  for (const prefix of ['', '/cc']) {
    it(`messages.stream() against ${prefix}/v1 gets text, stop reason and usage`, async () => {
      const client = new Anthropic({ baseURL: `${bed.url}${prefix}`, apiKey: 'dummy', maxRetries: 0 });
      const texts: string[] = [];
      const stream = client.messages.stream({
        model,
        max_tokens: 100,
        messages: [{ role: 'user', content: 'say hi' }],
      });
      stream.on('text', (t) => texts.push(t));
      const message = await stream.finalMessage();
      expect(texts).toEqual(['Hi ', 'from ', 'fake!']);
      expect(message.content).toEqual([{ type: 'text', text: reply }]);
      expect(message.stop_reason).toBe('end_turn');
      expect(message.model).toBe(model);
      expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: 3 });
    });
  }

  it('messages.create() without streaming gets a native message', async () => {
    const client = new Anthropic({ baseURL: bed.url, apiKey: 'dummy', maxRetries: 0 });
    const message = await client.messages.create({
      model,
      max_tokens: 100,
      messages: [{ role: 'user', content: 'say hi' }],
    });
    expect(message).toMatchObject({
      type: 'message',
      role: 'assistant',
      model,
      stop_reason: 'end_turn',
      content: [{ type: 'text', text: reply }],
    });
  });
});

describe('native chat completions (/v1/chat/completions)', () => {
  it('answers a completion (docs/interface.md "Chat completion")', async () => {
    const res = await postJson(`${bed.url}/v1/chat/completions`, {
      model,
      max_tokens: 50,
      messages: [{ role: 'user', content: 'say hi' }],
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({
      object: 'chat.completion',
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
  });

  it('streams data-only native chat-completion events, each token in its own delta, ending with [DONE]', async () => {
    const res = await postJson(`${bed.url}/v1/chat/completions`, {
      model,
      max_tokens: 50,
      stream: true,
      messages: [{ role: 'user', content: 'say hi' }],
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const events = await readSse(res);
    expect(events.every((e) => e.event === undefined)).toBe(true);
    const types = events.map((e) => (e.data === '[DONE]' ? '[DONE]' : (e.data as { type: string }).type));
    expect(types).toEqual([
      'message_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'message_delta',
      '[DONE]',
    ]);
    expect(events[4].data).toMatchObject({ delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 3 } });
  });
});

describe('token streaming', () => {
  it('sends each token as soon as the CLI prints it, not buffered', async () => {
    const slow = await startToolBed({ reply: 'one two three four', tokenDelayMs: 150 });
    try {
      const res = await postJson(`${slow.url}/compat/v1/chat/completions`, {
        model,
        stream: true,
        messages: [{ role: 'user', content: 'count' }],
      });
      const events = await readSse(res);
      const deltas = events.filter((e) => {
        const d = e.data as { choices?: Array<{ delta: { content?: string } }> };
        return typeof d === 'object' && d.choices?.[0]?.delta.content;
      });
      expect(
        deltas.map((e) => (e.data as { choices: Array<{ delta: { content: string } }> }).choices[0].delta.content),
      ).toEqual(['one ', 'two ', 'three ', 'four']);
      // Each token arrived in a read of its own: the proxy did not hold them back.
      expect(new Set(deltas.map((e) => e.read)).size).toBe(4);
    } finally {
      await slow.close();
    }
  });
});

describe('what reaches the CLI', () => {
  it('gets the whole conversation, the system prompt, the provider model id, tool rules, bounded retries, the user env and the app work dir', async () => {
    const key = 'tool-chat-access-key-0123456789';
    const echo = await startToolBed(
      { echo: true },
      { cliMaxRetries: 1, cliAllowedTools: ['Read'], cliDisallowedTools: ['Bash'], accessKey: key },
    );
    try {
      const client = new OpenAI({ baseURL: `${echo.url}/compat/v1`, apiKey: key, maxRetries: 0 });
      const completion = await client.chat.completions.create({
        model,
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'My name is Ada.' },
          { role: 'assistant', content: 'Hello Ada!' },
          { role: 'user', content: 'What is my name?' },
        ],
      });
      // The newest user message is the turn; the earlier ones reach the CLI as the structured messages of a
      // transcript it resumes (docs/tool-mode.md "A fresh start").
      expect(completion.choices[0].message.content).toBe('What is my name?');

      // The health probe runs the CLI too (--version, auth status); the chat is the print-mode run.
      const [record] = await echo.cli.chatRecords();
      expect(record.resumed).toEqual([
        { role: 'user', content: 'My name is Ada.' },
        expect.objectContaining({ role: 'assistant', content: [{ type: 'text', text: 'Hello Ada!' }] }),
      ]);
      expect(record.resumedFileMode).toBe('600');
      // With the reminders the CLI itself announced after a first prompt, where a live process had them, learnt from
      // one run of the CLI that writes its session in a throwaway HOME with no login and no provider
      // (docs/tool-mode.md "A fresh start").
      expect(record.resumedAttachments).toEqual(['user', 'environment', 'date', 'assistant']);
      const learnt = (await echo.cli.records()).filter((r) => r.argv.includes('--session-id'));
      expect(learnt).toHaveLength(1);
      expect(learnt[0].argv).not.toContain('--no-session-persistence');
      expect(learnt[0].cwd).toBe(record.cwd);
      expect(learnt[0].env.HOME).toContain(join(echo.dataDir, 'cli-transcripts'));
      expect(learnt[0].env.ANTHROPIC_BASE_URL).toBe('http://127.0.0.1:9');
      await expect(stat(learnt[0].env.HOME!)).rejects.toThrow();
      const transcriptFile = record.argv.at(-1)!;
      const promptFile = record.argv.at(-3)!;
      expect(record.argv).toEqual([
        '-p',
        '--input-format',
        'stream-json',
        '--output-format',
        'stream-json',
        '--verbose',
        '--include-partial-messages',
        '--model',
        'claude-sonnet-4-20250514',
        // Isolation from the user's own CLI set-up, and only the allowed tools offered (docs/tool-mode.md), confined
        // to the working directory by the rules of an owner-only settings file (docs/security.md).
        '--setting-sources',
        '',
        '--strict-mcp-config',
        '--mcp-config',
        '{"mcpServers":{}}',
        '--no-session-persistence',
        '--tools',
        'Read',
        '--settings',
        join(echo.dataDir, 'cli-prompts', String(process.pid), 'tool-rules.json'),
        '--restricted',
        '--system-prompt-file',
        promptFile,
        '--resume',
        transcriptFile,
      ]);
      expect(record.argv.join(' ')).not.toMatch(/dangerously|bypass/i);
      // The tool rules: owner-only, the bare file tool scoped to the working directory, the owner's secrets denied.
      const rulesFile = record.argv[record.argv.indexOf('--settings') + 1];
      expect((await stat(rulesFile)).mode & 0o777).toBe(0o600);
      const rules = JSON.parse(await readFile(rulesFile, 'utf8')) as {
        permissions: { allow: string[]; deny: string[]; defaultMode: string };
      };
      expect(rules.permissions.allow).toEqual(['Read(./**)']);
      expect(rules.permissions.deny).toEqual(expect.arrayContaining(['Read(~/.ssh/**)', 'Edit(~/.bashrc)', 'Bash']));
      expect(rules.permissions.defaultMode).toBe('dontAsk');
      // The system prompt went through an owner-only file in the data directory, never an argument; it is gone once
      // the process ended.
      expect(record.argv).not.toContain('You are terse.');
      expect(record.systemPrompt).toBe('You are terse.');
      expect(record.systemPromptFileMode).toBe('600');
      expect(promptFile.startsWith(join(echo.dataDir, 'cli-prompts'))).toBe(true);
      await expect.poll(() => existsSync(promptFile), { timeout: 5000 }).toBe(false);
      // So is the transcript, kept beside it in the data directory while the process lived.
      expect(transcriptFile.startsWith(join(echo.dataDir, 'cli-transcripts'))).toBe(true);
      await expect.poll(() => existsSync(transcriptFile), { timeout: 5000 }).toBe(false);
      expect(record.env.MAX_THINKING_TOKENS).toBe('0');
      expect(record.env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).toBe('1');
      // The newest user message is one user message of the CLI's stream-json input.
      expect(JSON.parse(record.stdin as string)).toEqual({
        type: 'user',
        message: { role: 'user', content: 'What is my name?' },
      });
      expect(record.env.CLAUDE_CODE_MAX_RETRIES).toBe('1');
      expect(record.env.HOME).toBe(childEnv.HOME);
      expect(record.env.hasPATH).toBe(true);
      expect(record.envKeys).toContain('LANG');
      expect(record.cwd).toBe(echo.workDir);
      expect((await stat(echo.workDir)).isDirectory()).toBe(true);
    } finally {
      await echo.close();
    }
  });
});

describe('parameters (docs/interface.md "Parameter translation", "Limits")', () => {
  it('names what the CLI cannot honour in X-Proxy-Ignored-Params, logged at debug level only, and passes max_tokens on', async () => {
    const res = await postJson(`${bed.url}/compat/v1/chat/completions`, {
      model,
      messages: [{ role: 'user', content: 'say hi' }],
      temperature: 1.7,
      stop: 'END',
      presence_penalty: 0.5,
      user: 'u1',
      max_tokens: 20,
    });
    expect(res.status).toBe(200);
    const header = res.headers.get('x-proxy-ignored-params') ?? '';
    expect(header.split(', ').sort()).toEqual(['presence_penalty', 'stop', 'temperature', 'user']);
    const lines = bed.proxy.logs().filter((l) => /cannot honour/.test(String(l.msg)));
    expect(lines.map((l) => l.level)).toEqual([20]);
    expect((await bed.cli.records()).at(-1)!.env.CLAUDE_CODE_MAX_OUTPUT_TOKENS).toBe('20');
  });

  it('native requests name temperature, top_k and stop_sequences; max_tokens reaches the CLI', async () => {
    const res = await postJson(`${bed.url}/v1/messages`, {
      model,
      max_tokens: 20,
      temperature: 0.2,
      top_k: 5,
      stop_sequences: ['x'],
      messages: [{ role: 'user', content: 'say hi' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')?.split(', ').sort()).toEqual([
      'stop_sequences',
      'temperature',
      'top_k',
    ]);
  });

  it.each([
    [
      '/v1/messages',
      { model, max_tokens: 5, temperature: 1.5, messages: [{ role: 'user', content: 'x' }] },
      'temperature',
    ],
    ['/v1/chat/completions', { model, messages: [{ role: 'user', content: 'x' }] }, 'max_tokens'],
    [
      '/compat/v1/chat/completions',
      { model, frequency_penalty: 3, messages: [{ role: 'user', content: 'x' }] },
      'frequency_penalty',
    ],
    [
      '/compat/v1/chat/completions',
      { model, temperature: 2.5, messages: [{ role: 'user', content: 'x' }] },
      'temperature',
    ],
  ])('%s refuses an out-of-range or missing field with a 400 naming it', async (path, body, field) => {
    const res = await postJson(`${bed.url}${path}`, body);
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).toContain(field);
  });

  // The client's tools are taken on the message and compatible routes (test/tool-client-tools.test.ts); the native
  // chat-completion format (docs/interface.md "Native chat request") has no tools.
  it('/v1/chat/completions refuses tools with a 400 that points to the routes that take them', async () => {
    const res = await postJson(`${bed.url}/v1/chat/completions`, {
      model,
      max_tokens: 5,
      tool_choice: { type: 'auto' },
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; details?: { field: string } } };
    expect(body.error.message).toContain('/v1/messages');
    expect(body.error.details?.field).toBe('tool_choice');
  });

  it('a compatible tool_choice without tools is answered and named as ignored', async () => {
    const res = await postJson(`${bed.url}/sdk/v1/chat/completions`, {
      model,
      tool_choice: 'auto',
      messages: [{ role: 'user', content: 'x' }],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-proxy-ignored-params')).toContain('tool_choice');
  });
});

describe('what served the answer', () => {
  // A CLI that sent another model upstream than the one asked for (docs/tool-mode.md "Answers"): every format, whole
  // and streamed, names the served one, and every chunk of a stream names the same model.
  const asked = 'assistant-opus-4-20250514';
  const served = 'assistant-opus-4-1-20250805';
  let servedBed: ToolBed;
  beforeAll(async () => {
    servedBed = await startToolBed({ env: { FAKE_CLI_SERVED_MODEL: 'claude-opus-4-1-20250805' } }, { ollamaPort: 0 });
  });
  afterAll(async () => {
    await servedBed?.close();
  });

  /** Every `model` field anywhere in a value (a chunk, a Responses event's response, an Ollama line). */
  function modelsIn(value: unknown): string[] {
    if (Array.isArray(value)) return value.flatMap(modelsIn);
    if (value === null || typeof value !== 'object') return [];
    return Object.entries(value).flatMap(([key, v]) => (key === 'model' && typeof v === 'string' ? [v] : modelsIn(v)));
  }

  function ollamaBase(): string {
    const status = servedBed.proxy.proxy.ollama();
    if (status.state !== 'listening') throw new Error(`the Ollama listener is ${status.state}`);
    return status.url;
  }

  const chat = { messages: [{ role: 'user', content: 'say hi' }] };
  const formats: Array<{ name: string; url: () => string; body: Record<string, unknown>; ndjson?: boolean }> = [
    { name: 'compatible', url: () => `${servedBed.url}/compat/v1/chat/completions`, body: chat },
    { name: 'compatible /cc', url: () => `${servedBed.url}/cc/v1/chat/completions`, body: chat },
    { name: 'compatible /sdk', url: () => `${servedBed.url}/sdk/v1/chat/completions`, body: chat },
    { name: 'native chat', url: () => `${servedBed.url}/v1/chat/completions`, body: { ...chat, max_tokens: 20 } },
    { name: 'native messages', url: () => `${servedBed.url}/v1/messages`, body: { ...chat, max_tokens: 20 } },
    { name: 'Responses', url: () => `${servedBed.url}/v1/responses`, body: { input: 'say hi' } },
    { name: 'Ollama chat', url: () => `${ollamaBase()}/api/chat`, body: chat, ndjson: true },
    { name: 'Ollama generate', url: () => `${ollamaBase()}/api/generate`, body: { prompt: 'say hi' }, ndjson: true },
  ];
  for (const format of formats) {
    it(`${format.name}: the whole answer names the served model`, async () => {
      const res = await postJson(format.url(), { model: asked, ...format.body, stream: false });
      expect(res.status).toBe(200);
      const models = modelsIn(await res.json());
      expect(models.length).toBeGreaterThan(0);
      expect(new Set(models)).toEqual(new Set([served]));
    });
    it(`${format.name}: every streamed event names the served model`, async () => {
      const res = await postJson(format.url(), { model: asked, ...format.body, stream: true });
      expect(res.status).toBe(200);
      const items = format.ndjson
        ? (await res.text())
            .split('\n')
            .filter((line) => line !== '')
            .map((line) => JSON.parse(line) as unknown)
        : (await readSse(res)).map((e) => e.data);
      const models = modelsIn(items);
      // The first item already names it: the CLI's message_start comes before any content.
      expect(new Set(modelsIn(items[0]))).toEqual(new Set([served]));
      expect(new Set(models)).toEqual(new Set([served]));
    });
  }

  it('the answer and the ledger name the model the provider really received, not the one asked for', async () => {
    const cli = await makeFakeCli({ env: { FAKE_CLI_SERVED_MODEL: 'claude-opus-4-1-20250805' } });
    const base = await mkdtemp(join(tmpdir(), 'served-'));
    const rows: UsageRecord[] = [];
    const usage: UsageSink = {
      record: (row) => rows.push(row),
      upstreamHeaders: () => undefined,
      cliRateLimit: () => undefined,
    };
    const proxy = await startProxy(
      { cliPath: cli.path, cliWorkDir: join(base, 'work'), dataDir: join(base, 'data'), modes: ['tool'] },
      { deps: { childEnv }, usage },
    );
    try {
      const res = await postJson(`${proxy.url}/v1/messages`, {
        model: 'assistant-opus-4-20250514',
        max_tokens: 20,
        messages: [{ role: 'user', content: 'hi' }],
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { model: string }).model).toBe('assistant-opus-4-1-20250805');
      await expect.poll(() => rows.length, { timeout: 5000 }).toBeGreaterThan(0);
      expect(rows[0]).toMatchObject({
        modelRequested: 'assistant-opus-4-20250514',
        modelServed: 'assistant-opus-4-1-20250805',
      });
    } finally {
      await proxy.close();
      await cli.cleanup();
      await rm(base, { recursive: true, force: true });
    }
  });
});
