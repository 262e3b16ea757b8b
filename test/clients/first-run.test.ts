// A first run as a new user meets it (`npm run serve`): a start-up summary a person can read, saying where the
// proxy listens, which modes are on, and whether the CLI is there and logged in, or the one thing to do next;
// exit codes that tell an invalid setting (2) from a failure to start (1).

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFakeCli, type FakeCli } from '../fixtures/fake-cli.js';
import { freePort } from '../helpers/free-port.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let home: string;
beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'first-run-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

/** Runs the serve entry with a bare environment: an empty HOME and a PATH without any assistant CLI. */
function serve(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/cli.ts', ...args], {
    cwd: root,
    env: { PATH: '/usr/bin:/bin', HOME: home, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, out: () => stdout, err: () => stderr };
}

async function summaryOf(run: ReturnType<typeof serve>): Promise<string> {
  try {
    await expect.poll(() => run.err().includes('Stop with Ctrl-C'), { timeout: 20_000 }).toBe(true);
    return run.err();
  } finally {
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
  }
}

describe('the start-up summary', () => {
  it('tells a user without the CLI what to install and how to log in, in plain words', async () => {
    const port = await freePort();
    const text = await summaryOf(serve(['--port', String(port)]));
    expect(text).toContain(`listening on http://127.0.0.1:${port}`);
    expect(text).toContain(`http://127.0.0.1:${port}/compat/v1`);
    expect(text).toContain('modes on: tool, direct, respapi');
    expect(text).toContain('assistant CLI: not found on PATH');
    expect(text).toContain('Next: install the assistant CLI: npm install -g @anthropic-ai/claude-code');
    expect(text).toContain('claude auth login');
    // Only one next step, and the summary comes before anything else on stderr.
    expect(text.match(/Next:/g)).toHaveLength(1);
    expect(text.startsWith('Assistant Proxy ')).toBe(true);
  }, 30_000);

  describe('with a CLI', () => {
    let cli: FakeCli;
    beforeAll(async () => {
      cli = await makeFakeCli({ version: '2.1.330 (Claude Code)' });
    });
    afterAll(async () => {
      await cli?.cleanup();
    });

    it('says where the CLI is and that it is logged in, with no next step for tool mode', async () => {
      const text = await summaryOf(
        serve(['--port', String(await freePort()), '--modes', 'tool'], { ASSISTANT_CLI_PATH: cli.path }),
      );
      expect(text).toContain(`assistant CLI: found at ${cli.path} (2.1.330), logged in`);
      expect(text).toContain('modes on: tool');
      expect(text).not.toContain('/respapi');
      expect(text).not.toContain('Next:');
    }, 30_000);

    it('names the login command when the CLI is logged out', async () => {
      const out = await makeFakeCli({ loggedIn: false });
      try {
        const text = await summaryOf(
          serve(['--port', String(await freePort()), '--modes', 'tool'], { ASSISTANT_CLI_PATH: out.path }),
        );
        expect(text).toContain('not logged in');
        expect(text).toMatch(/Next: .*claude auth login/);
      } finally {
        await out.cleanup();
      }
    }, 30_000);
  });

  it('names a wrong ASSISTANT_CLI_PATH as the thing to fix', async () => {
    const text = await summaryOf(
      serve(['--port', String(await freePort()), '--modes', 'tool'], { ASSISTANT_CLI_PATH: '/nowhere/claude' }),
    );
    expect(text).toContain('assistant CLI: not found at /nowhere/claude (ASSISTANT_CLI_PATH)');
    expect(text).toContain('Next: point ASSISTANT_CLI_PATH');
  }, 30_000);
});

describe('--diagnose', () => {
  it('prints the report and exits 1 when a check fails (no CLI)', async () => {
    const run = serve(['--diagnose', '--modes', 'tool']);
    expect(await run.exited).toBe(1);
    expect(run.out()).toContain('[FAIL] Assistant CLI found');
  }, 60_000);

  it('exits 0 when every check of the enabled modes passes', async () => {
    const cli = await makeFakeCli({});
    try {
      const run = serve(['--diagnose', '--modes', 'tool'], { ASSISTANT_CLI_PATH: cli.path });
      expect(await run.exited).toBe(0);
      expect(run.out()).not.toContain('[FAIL]');
      expect(run.out()).toContain('[PASS] A tiny request through tool mode');
    } finally {
      await cli.cleanup();
    }
  }, 60_000);
});

describe('exit codes', () => {
  it('2 and one line for an alias of an unknown model (MODEL_ALIASES)', async () => {
    const run = serve([], { MODEL_ALIASES: 'gpt-4o=gpt-5' });
    expect(await run.exited).toBe(2);
    expect(run.err().trim().split('\n')).toEqual([
      expect.stringMatching(/^assistant-proxy: Invalid setting MODEL_ALIASES: gpt-4o=gpt-5 names an unknown model/),
    ]);
  });

  it('2 for an unreadable ASSISTANT_PROFILE_FILE', async () => {
    const file = join(home, 'profile.json');
    await writeFile(file, '{ not json');
    const run = serve([], { ASSISTANT_PROFILE_FILE: file });
    expect(await run.exited).toBe(2);
    expect(run.err()).toMatch(/^assistant-proxy: ASSISTANT_PROFILE_FILE: cannot read/);
  });

  it('1 with the reason when the address cannot be bound, not 2', async () => {
    // 192.0.2.1 is a documentation address (RFC 5737) that no machine has; beyond loopback an access key is needed.
    const run = serve(['--host', '192.0.2.1', '--port', '0'], { PROXY_ACCESS_KEY: 'a-long-enough-access-key' });
    expect(await run.exited).toBe(1);
    expect(run.err().trim()).toBe(
      'assistant-proxy: cannot start: Address 192.0.2.1 is not available on this machine; choose another --host',
    );
  });
});
