// A newcomer's first hour, as a test: the start-up banner while the CLI check is still running, answers that no
// retry can fix failing at once in the official SDKs, every copied base URL working in the SDK it is labelled for,
// and the demo's fake CLI calling a client's tool. (The window's health states: test/main/tray-model.test.ts and
// test/renderer/window.browser.test.ts.)

import { spawn } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usage, validateSettings } from '../src/proxy/config.js';
import { sdkBaseUrls } from '../src/shared/endpoints.js';
import { cliReply, model, simReply, startClientBed, type ClientBed } from './clients/bed.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { freePort } from './helpers/free-port.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { childEnv } from './helpers/tool-proxy.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const realCli = join(root, '.cache', 'real-cli', 'node_modules', '.bin', 'claude');

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'newcomer-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** `npm run serve` as a user starts it, with its own data directory; stopped with SIGTERM by the caller. */
function serve(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/cli.ts', '--port', '0'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: env.HOME ?? process.env.HOME ?? '',
      DATA_DIR: join(dir, 'data'),
      LOG_LEVEL: 'warn',
      MODES: 'tool,direct',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  // The exit code, or the signal that ended the process (a failure then names it, rather than reading "null").
  const exited = new Promise<number | string | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(code ?? signal)),
  );
  return { child, exited, err: () => stderr };
}

describe('the start-up banner', () => {
  it('says "checking" while a slow CLI is checked, then that it is found and not logged in; never "not found"', async () => {
    // A CLI that takes longer to answer than the banner waits (a cold start on a busy machine).
    const slow = join(dir, 'slow-cli');
    await writeFile(
      slow,
      '#!/bin/sh\nsleep 4\nif [ "$1" = "--version" ]; then echo "2.1.330 (Claude Code)"; exit 0; fi\necho \'{"loggedIn": false, "authMethod": "none"}\'\nexit 1\n',
    );
    await chmod(slow, 0o755);
    const run = serve({ ASSISTANT_CLI_PATH: slow });
    try {
      await expect.poll(() => run.err(), { timeout: 20_000 }).toMatch(/assistant CLI: checking/);
      await expect
        .poll(() => run.err(), { timeout: 20_000 })
        .toMatch(
          /assistant CLI: found at .*slow-cli \(2\.1\.330\), not logged in\nNext: Log in with the CLI: run `claude auth login`/,
        );
      expect(run.err()).not.toMatch(/not found/);
      expect(run.err()).not.toMatch(/install the assistant CLI/);
    } finally {
      run.child.kill('SIGTERM');
    }
    expect(await run.exited).toBe(0);
  }, 60_000);

  it.skipIf(!existsSync(realCli))(
    'with the real CLI installed but not logged in, says so and never "not found"',
    async () => {
      const home = await mkdtemp(join(dir, 'home-'));
      const run = serve({ ASSISTANT_CLI_PATH: realCli, HOME: home });
      try {
        await expect
          .poll(() => run.err(), { timeout: 40_000 })
          .toMatch(/assistant CLI: found at .*claude \(\d+\.\d+\.\d+\), not logged in/);
        expect(run.err()).toMatch(/Next: Log in with the CLI/);
        expect(run.err()).not.toMatch(/not found/);
      } finally {
        run.child.kill('SIGTERM');
      }
      expect(await run.exited).toBe(0);
    },
    60_000,
  );
});

describe('npm run serve -- --help', () => {
  it('names each default once', () => {
    for (const line of usage().split('\n')) expect(line.split('(default:').length, line).toBeLessThanOrEqual(2);
    expect(usage()).toMatch(/ASSISTANT_CLI_PATH +the assistant CLI executable \(default: searched on PATH\)/);
    expect(usage()).toMatch(/CLI_WORKDIR .*\(default: DATA_DIR\/cli-workdir\)/);
  });
});

describe('answers no retry can fix', () => {
  let missing: TestProxy;
  let loggedOut: TestProxy;
  let fake: FakeCli;
  beforeAll(async () => {
    missing = await startProxy({ modes: ['tool'], cliPath: join(dir, 'no-such-cli'), cliWorkDir: join(dir, 'work-a') });
    fake = await makeFakeCli({ loggedIn: false });
    loggedOut = await startProxy(
      { modes: ['tool'], cliPath: fake.path, cliWorkDir: join(dir, 'work-b') },
      { deps: { childEnv } },
    );
  });
  afterAll(async () => {
    await missing?.close();
    await loggedOut?.close();
    await fake?.cleanup();
  });

  /** A fetch that counts what the SDK sends. */
  const counting = () => {
    const sent: string[] = [];
    const f: typeof fetch = (input, init) => {
      sent.push(String(input instanceof Request ? input.url : input));
      return fetch(input, init);
    };
    return { sent, fetch: f };
  };

  for (const [what, proxy, status] of [
    ['503 CLI not found', () => missing, 503],
    ['401 not logged in', () => loggedOut, 401],
  ] as const) {
    it(`${what}: carries x-should-retry: false, and the OpenAI SDK sends it once with its default retries on`, async () => {
      const res = await fetch(`${proxy().url}/compat/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(status);
      expect(res.headers.get('x-should-retry')).toBe('false');
      const c = counting();
      const client = new OpenAI({ baseURL: `${proxy().url}/compat/v1`, apiKey: 'dummy', fetch: c.fetch });
      await expect(
        client.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toMatchObject({ status });
      expect(c.sent).toHaveLength(1);
    });

    it(`${what}: the native SDK sends it once with its default retries on`, async () => {
      const c = counting();
      const client = new Anthropic({ baseURL: proxy().url, apiKey: 'dummy', fetch: c.fetch });
      await expect(
        client.messages.create({ model, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }),
      ).rejects.toMatchObject({ status });
      expect(c.sent).toHaveLength(1);
    });
  }

  it('leaves an answer a retry can fix (429, a busy proxy) to the SDK: no x-should-retry: false', async () => {
    const limited = await startProxy(
      {
        modes: ['tool'],
        cliPath: fake.path,
        cliWorkDir: join(dir, 'work-c'),
        rateLimitPerMinute: 1,
        rateLimitBurst: 0,
      },
      { deps: { childEnv } },
    );
    try {
      const get = () => fetch(`${limited.url}/compat/v1/models`);
      await get();
      const res = await get();
      expect(res.status).toBe(429);
      expect(res.headers.get('x-should-retry')).toBeNull();
    } finally {
      await limited.close();
    }
  });
});

describe('CLI_WORKDIR', () => {
  it('follows DATA_DIR when it is not set, and stays where it is set', () => {
    expect(validateSettings({ dataDir: join(dir, 'data') }).cliWorkDir).toBe(join(dir, 'data', 'cli-workdir'));
    expect(validateSettings({ dataDir: join(dir, 'data'), cliWorkDir: join(dir, 'elsewhere') }).cliWorkDir).toBe(
      join(dir, 'elsewhere'),
    );
  });
});

describe('copied base URLs', () => {
  let bed: ClientBed;
  beforeAll(async () => {
    bed = await startClientBed();
  });
  afterAll(async () => {
    await bed?.close();
  });

  it('each works, as it is, in the SDK it is labelled for', async () => {
    const urls = sdkBaseUrls(bed.url, ['tool', 'direct']);
    expect(urls.map((u) => u.label)).toEqual([
      'native SDK (tool mode)',
      'OpenAI SDK (tool mode)',
      'native SDK, direct mode',
      'OpenAI SDK, direct mode',
    ]);
    for (const u of urls) {
      const expected = u.mode === 'tool' ? cliReply : simReply;
      if (u.label.startsWith('native SDK')) {
        const message = await new Anthropic({ baseURL: u.url, apiKey: 'dummy', maxRetries: 0 }).messages.create({
          model,
          max_tokens: 100,
          messages: [{ role: 'user', content: 'say hi' }],
        });
        expect(message.content[0], u.label).toMatchObject({ type: 'text', text: expected });
      } else {
        const completion = await new OpenAI({ baseURL: u.url, apiKey: 'dummy', maxRetries: 0 }).chat.completions.create(
          { model, messages: [{ role: 'user', content: 'say hi' }] },
        );
        expect(completion.choices[0].message.content, u.label).toBe(expected);
      }
    }
  });
});

describe('npm run demo', () => {
  it('prints its usage for --help and starts nothing', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--help'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    expect(await new Promise((resolve) => child.on('exit', resolve))).toBe(0);
    expect(out).toMatch(/^Usage: npm run demo/);
    expect(out).not.toMatch(/DEMONSTRATION MODE/);
  }, 30_000);

  it("calls a client's tool through tool mode and answers with the client's result", async () => {
    const port = await freePort();
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo.ts', '--port', String(port)], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let banner = '';
    child.stderr.on('data', (c: Buffer) => (banner += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      await expect.poll(() => banner.includes('Ctrl-C'), { timeout: 20_000 }).toBe(true);
      // The banner's own tool-call line, sent as printed.
      const line = /-d '(\{[^']*"tools"[^']*\})'/.exec(banner);
      expect(line).not.toBeNull();
      const request = JSON.parse(line![1]) as { messages: Array<Record<string, unknown>>; tools: unknown[] };
      const client = new OpenAI({ baseURL: `http://127.0.0.1:${port}/compat/v1`, apiKey: 'dummy', maxRetries: 0 });
      const first = await client.chat.completions.create({
        model,
        messages: request.messages as never,
        tools: request.tools as never,
      });
      expect(first.choices[0].finish_reason).toBe('tool_calls');
      const call = first.choices[0].message.tool_calls![0] as {
        id: string;
        function: { name: string; arguments: string };
      };
      expect(call.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
      const second = await client.chat.completions.create({
        model,
        tools: request.tools as never,
        messages: [
          ...(request.messages as never[]),
          first.choices[0].message,
          { role: 'tool', tool_call_id: call.id, content: '18 °C and sunny' },
        ],
      });
      expect(second.choices[0].message.content).toBe('The tool said: 18 °C and sunny');
      // The response API's copied base URL works in the SDK it is labelled for (the demo has that mode on).
      const [respapi] = sdkBaseUrls(`http://127.0.0.1:${port}`, ['respapi']);
      expect(respapi.label).toBe('OpenAI SDK, response API');
      const response = await new OpenAI({ baseURL: respapi.url, apiKey: 'dummy', maxRetries: 0 }).responses.create({
        model: 'rm-4',
        input: 'hi',
      });
      expect(response.status).toBe('completed');
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
