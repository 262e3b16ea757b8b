// A tool-mode request is planned once (request-plan.ts): its messages are hashed once, its CLI input built once and
// its key computed once, whether it starts a process, continues a live one or brings the tool results a waiting one
// needs. Counted through the backend with the fake CLI, by spying on the three functions.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { makeFakeCli, type FakeCli } from '../../../../../test/fixtures/fake-cli.js';
import { childEnv } from '../../../../../test/helpers/tool-proxy.js';
import { validateSettings } from '../../../config.js';
import type { NativeMessageParam, NativeRequest, NativeStreamEvent } from '../../../formats/native.js';
import { createLogger } from '../../../logger.js';
import { createProfile } from '../../../profile.js';
import {
  createNativeMessageState,
  finishNativeMessage,
  stepNativeMessage,
} from '../../../formats/native-events-to-message.js';
import { CliBackend } from './cli-backend.js';

const calls = vi.hoisted(() => ({ digest: 0, input: 0, key: 0 }));

vi.mock('./conversation-history.js', async (original) => {
  const mod = await original<typeof import('./conversation-history.js')>();
  return {
    ...mod,
    historyEntryOf: (m: NativeMessageParam) => (calls.digest++, mod.historyEntryOf(m)),
    // The history after a turn is built from the request's digests; any message handed here would be hashed again.
    historyAfterTurn: (messages: NativeMessageParam[], answer: Parameters<typeof mod.historyAfterTurn>[1]) => {
      calls.digest += messages.length;
      return mod.historyAfterTurn(messages, answer);
    },
    // It hashes the earlier messages when their count and the last role fit the process's history.
    continuesHistory: (h: Parameters<typeof mod.continuesHistory>[0], messages: NativeMessageParam[]) => {
      if (h.length > 0 && messages.length === h.length + 1 && messages.at(-1)?.role === 'user')
        calls.digest += h.length;
      return mod.continuesHistory(h, messages);
    },
  };
});
vi.mock('../translate/native-request-to-cli-input.js', async (original) => {
  const mod = await original<typeof import('../translate/native-request-to-cli-input.js')>();
  return {
    ...mod,
    nativeRequestToCliInput: (...a: Parameters<typeof mod.nativeRequestToCliInput>) => (
      calls.input++,
      mod.nativeRequestToCliInput(...a)
    ),
  };
});
vi.mock('./spec.js', async (original) => {
  const mod = await original<typeof import('./spec.js')>();
  return { ...mod, keyOf: (...a: Parameters<typeof mod.keyOf>) => (calls.key++, mod.keyOf(...a)) };
});

const model = 'assistant-sonnet-4-20250514';
let cli: FakeCli;
let base: string;
let backend: CliBackend;

beforeEach(async () => {
  cli = await makeFakeCli({ env: { FAKE_CLI_TOOL_CALLS: '1' } });
  base = await mkdtemp(join(tmpdir(), 'plan-'));
  const profile = createProfile({});
  const config = validateSettings(
    { cliPath: cli.path, cliWorkDir: join(base, 'work'), dataDir: join(base, 'data'), cliLiveMax: 4 },
    profile,
  );
  backend = new CliBackend({
    config,
    profile,
    logger: createLogger('silent'),
    findCli: () => ({ path: cli.path, searched: [] }),
    cliEnv: childEnv,
  });
});

afterEach(async () => {
  await backend.close();
  await cli.cleanup();
  await rm(base, { recursive: true, force: true });
});

/** One request through the backend: its events, and what planning it cost. */
async function ask(messages: NativeMessageParam[], extra: Partial<NativeRequest> = {}) {
  calls.digest = calls.input = calls.key = 0;
  const events: NativeStreamEvent[] = [];
  for await (const e of backend.stream({ model, max_tokens: 50, messages, ...extra }, new AbortController().signal))
    events.push(e);
  return { events, ...calls };
}

const text = (events: NativeStreamEvent[]) =>
  events.map((e) => (e.type === 'content_block_delta' && e.delta.type === 'text_delta' ? e.delta.text : '')).join('');

describe('a request is planned once', () => {
  it('a plain chat and the follow-up that continues its live process: each message hashed once, one input, one key', async () => {
    const one: NativeMessageParam[] = [{ role: 'user', content: 'one' }];
    const first = await ask(one);
    expect({ digest: first.digest, input: first.input, key: first.key }).toEqual({ digest: 1, input: 1, key: 1 });
    const follow: NativeMessageParam[] = [
      ...one,
      { role: 'assistant', content: text(first.events) },
      { role: 'user', content: 'two' },
    ];
    const second = await ask(follow);
    expect(backend.liveSnapshot()).toMatchObject({ continued: 1 });
    expect({ digest: second.digest, input: second.input, key: second.key }).toEqual({ digest: 3, input: 1, key: 1 });
  });

  it('a tool chat and the results that resume its waiting process: each message hashed once, one input, one key', async () => {
    const tools = [{ name: 'get_weather', description: 'weather', input_schema: { type: 'object' as const } }];
    const ask1: NativeMessageParam[] = [{ role: 'user', content: 'weather?' }];
    const first = await ask(ask1, { tools });
    expect(backend.toolWaitingCount()).toBe(1);
    expect({ digest: first.digest, input: first.input, key: first.key }).toEqual({ digest: 1, input: 1, key: 1 });
    // The client re-sends the answer it was given, calls included, and the result of each call.
    const state = createNativeMessageState();
    for (const e of first.events) stepNativeMessage(e, state);
    const answer = finishNativeMessage(state).message;
    if (!answer) throw new Error('the first answer did not finish');
    const uses = answer.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
    expect(uses).toHaveLength(1);
    const results: NativeMessageParam[] = [
      ...ask1,
      { role: 'assistant', content: answer.content },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: uses[0].id, content: 'sunny' }] },
    ];
    const second = await ask(results, { tools });
    expect(text(second.events)).toContain('sunny');
    expect(backend.toolWaitingCount()).toBe(0);
    expect({ digest: second.digest, input: second.input, key: second.key }).toEqual({ digest: 3, input: 1, key: 1 });
  });
});
