// Tool-mode test bed: a fake CLI (test/fixtures/fake-cli.ts) and a real proxy pointed at it, with a minimal child
// environment so a developer's own CLAUDE_CODE_MAX_RETRIES or keys cannot change results.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '../../src/proxy/config.js';
import type { UsageSink } from '../../src/proxy/usage/types.js';
import { makeFakeCli, type FakeCli, type FakeCliKnobs } from '../fixtures/fake-cli.js';
import { startProxy, type TestProxy } from './proxy.js';

export interface ToolBed {
  cli: FakeCli;
  proxy: TestProxy;
  url: string;
  workDir: string;
  /** The proxy's data directory (system prompt files live under it). */
  dataDir: string;
  close(): Promise<void>;
}

export const childEnv = {
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: process.env.HOME ?? '/tmp',
  LANG: 'C.UTF-8',
};

/** `env` adds variables to the user's environment the child inherits; `usage` is the proxy's ledger, if any. */
export async function startToolBed(
  knobs: FakeCliKnobs = {},
  settings: Settings = {},
  env: Record<string, string> = {},
  usage?: UsageSink,
): Promise<ToolBed> {
  const cli = await makeFakeCli(knobs);
  const base = await mkdtemp(join(tmpdir(), 'tool-bed-'));
  // A directory that does not exist yet: the backend creates it.
  const workDir = join(base, 'cli-workdir');
  const proxy = await startProxy(
    {
      cliPath: cli.path,
      cliWorkDir: workDir,
      dataDir: join(base, 'data'),
      modes: ['tool'],
      rateLimitPerMinute: 10_000,
      ...settings,
    },
    { deps: { childEnv: { ...childEnv, ...env } }, usage },
  );
  return {
    cli,
    proxy,
    url: proxy.url,
    workDir,
    dataDir: join(base, 'data'),
    async close() {
      await proxy.close();
      await cli.cleanup();
      await rm(base, { recursive: true, force: true });
    },
  };
}

export async function postJson(url: string, body: unknown, init: RequestInit = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...init,
  });
}

/** Server-sent events as {event, data} (data parsed as JSON unless it is [DONE]); with the read they arrived in. */
export interface ReadEvent {
  event?: string;
  data: unknown;
  read: number;
}

export async function readSse(res: Response): Promise<ReadEvent[]> {
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const events: ReadEvent[] = [];
  let buffer = '';
  let read = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    read++;
    buffer += decoder.decode(value, { stream: true });
    let at: number;
    while ((at = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, at);
      buffer = buffer.slice(at + 2);
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      const text = data.join('\n');
      events.push({ event, data: text === '[DONE]' ? text : JSON.parse(text), read });
    }
  }
  return events;
}

/** Polls until check() is true or the time is up; returns the last result. */
export async function waitFor(check: () => Promise<boolean> | boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 25));
  }
}
