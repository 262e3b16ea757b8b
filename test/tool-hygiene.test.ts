// Process hygiene in tool mode (docs/tool-mode.md): a client that goes away ends its CLI child; a child that ignores
// SIGTERM is killed; the cap on children with its bounded queue answers 429 when full; shutdown ends every child.

import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeFakeCli, type FakeCliKnobs } from './fixtures/fake-cli.js';
import type { Settings } from '../src/proxy/config.js';
import { postJson, startToolBed, waitFor, type ToolBed } from './helpers/tool-proxy.js';

const model = 'assistant-sonnet-4-20250514';
const chat = { model, messages: [{ role: 'user', content: 'say hi' }] };

let bed: ToolBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});
async function start(knobs: FakeCliKnobs, settings: Settings = {}): Promise<ToolBed> {
  bed = await startToolBed(knobs, settings);
  return bed;
}

/** Pids of print-mode children whose pid file is there (running, or ended by a signal). */
async function chatPids(b: ToolBed): Promise<number[]> {
  // A record being written can be read half-way; the caller polls again.
  const records = await b.cli.chatRecords().catch(() => []);
  const files = new Set(await b.cli.pids());
  return records.map((r) => r.pid).filter((pid) => files.has(pid));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a client that disconnects', () => {
  it('mid-stream: the CLI child gets SIGTERM and no process remains', async () => {
    const b = await start({ reply: Array.from({ length: 40 }, (_, i) => `w${i}`).join(' '), tokenDelayMs: 100 });
    const abort = new AbortController();
    const res = await postJson(
      `${b.url}/compat/v1/chat/completions`,
      { ...chat, stream: true },
      { signal: abort.signal },
    );
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('w1')) text += new TextDecoder().decode((await reader.read()).value);
    const [pid] = await chatPids(b);
    expect(alive(pid)).toBe(true);
    abort.abort();
    expect(await waitFor(() => !alive(pid), 5000)).toBe(true);
    expect(await readFile(join(b.cli.pidDir, String(pid)), 'utf8')).toContain('SIGTERM');
    expect(await b.cli.alivePids()).toEqual([]);
  });

  it('before the answer starts (non-streaming): the child is ended too', async () => {
    const b = await start({ scenario: 'hang' });
    const abort = new AbortController();
    const pending = postJson(`${b.url}/v1/messages`, { ...chat, max_tokens: 5 }, { signal: abort.signal }).catch(
      (e: Error) => e,
    );
    expect(await waitFor(async () => (await chatPids(b)).length === 1)).toBe(true);
    const [pid] = await chatPids(b);
    abort.abort();
    await pending;
    expect(await waitFor(() => !alive(pid), 5000)).toBe(true);
  });

  it('a child that ignores SIGTERM is killed after the grace period', async () => {
    // A deadline long enough for the fake to have started and set up its SIGTERM handler on a loaded machine
    // (a SIGTERM before that ends it at once, and there is no grace period to test).
    const b = await start({ scenario: 'ignore-sigterm' }, { cliFirstTokenTimeoutMs: 1500 });
    const res = await postJson(`${b.url}/v1/messages`, { ...chat, max_tokens: 5 });
    expect(res.status).toBe(504);
    expect(await waitFor(async () => (await chatPids(b)).length === 1)).toBe(true);
    const [pid] = await chatPids(b);
    expect(await waitFor(() => !alive(pid), 6000)).toBe(true);
    expect(await readFile(join(b.cli.pidDir, String(pid)), 'utf8')).toContain('SIGTERM');
  });
});

async function waitingCount(b: ToolBed): Promise<number | undefined> {
  const health = (await (await fetch(`${b.url}/health/detailed`)).json()) as Record<string, unknown>;
  const find = (v: unknown): number | undefined => {
    if (typeof v !== 'object' || v === null) return undefined;
    const o = v as Record<string, unknown>;
    if (o.cli_children) return (o.cli_children as { slots: { waiting: number } }).slots.waiting;
    for (const child of Object.values(o)) {
      const found = find(child);
      if (found !== undefined) return found;
    }
    return undefined;
  };
  return find(health);
}

describe('process groups', () => {
  it.skipIf(process.platform === 'win32')(
    'ending a child also ends what it started (a tool left running)',
    async () => {
      const cli = await makeFakeCli({ scenario: 'hang' });
      try {
        // A CLI that starts a long-running "tool" in the background, then runs the fake.
        const wrapper = join(cli.dir, 'cli-with-tool');
        const marker = join(cli.dir, 'grandchild');
        await writeFile(wrapper, `#!/bin/sh\nsleep 30 &\necho $! > '${marker}'\nexec '${cli.path}' "$@"\n`);
        await chmod(wrapper, 0o755);
        const b = await start({}, { cliPath: wrapper, cliFirstTokenTimeoutMs: 300 });
        const res = await postJson(`${b.url}/v1/messages`, { ...chat, max_tokens: 5 });
        expect(res.status).toBe(504);
        const grandchild = Number((await readFile(marker, 'utf8')).trim());
        expect(grandchild).toBeGreaterThan(0);
        expect(await waitFor(() => !alive(grandchild), 5000)).toBe(true);
      } finally {
        await cli.cleanup();
      }
    },
  );
});

describe('concurrency cap and queue', () => {
  it('runs at most CLI_MAX_CONCURRENT children, queues CLI_QUEUE_SIZE, and answers 429 with Retry-After beyond', async () => {
    const b = await start({ delayMs: 800 }, { cliMaxConcurrent: 1, cliQueueSize: 1 });
    const first = postJson(`${b.url}/compat/v1/chat/completions`, chat);
    expect(await waitFor(async () => (await chatPids(b)).length === 1)).toBe(true);
    const second = postJson(`${b.url}/compat/v1/chat/completions`, chat);
    // The second request waits in the queue (/health/detailed shows the slots); it starts no child meanwhile.
    expect(await waitFor(async () => (await waitingCount(b)) === 1)).toBe(true);
    expect(await chatPids(b)).toHaveLength(1);
    const third = await postJson(`${b.url}/compat/v1/chat/completions`, chat);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toBe('5');
    const body = (await third.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('rate_limit_exceeded');
    expect(body.error.message).toMatch(/CLI_MAX_CONCURRENT/);
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // The two children ran one after the other.
    const runs = await b.cli.chatRecords();
    expect(runs).toHaveLength(2);
  });
});

describe('shutdown', () => {
  it('ends every CLI child', async () => {
    const b = await start({ scenario: 'hang' }, { cliFirstTokenTimeoutMs: 60_000 });
    const pending = [1, 2].map(() =>
      postJson(`${b.url}/compat/v1/chat/completions`, { ...chat, stream: true }).catch((e: Error) => e),
    );
    expect(await waitFor(async () => (await chatPids(b)).length === 2)).toBe(true);
    const pids = await chatPids(b);
    await b.proxy.close();
    await Promise.all(pending);
    expect(await waitFor(() => pids.every((pid) => !alive(pid)), 5000)).toBe(true);
  });
});
