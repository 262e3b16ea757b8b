import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCliLine } from './cli-events.js';
import type { NativeStreamEvent } from '../../../formats/native.js';
import { createCliTranslateState, finishCliLines, stepCliLine, type CliRetry } from './cli-events-to-native-events.js';
import {
  createCompatChunkState,
  finishCompatChunks,
  stepCompatChunks,
} from '../../../formats/compat/native-events-to-compat-chunks.js';

const options = {
  notLoggedInPattern: 'Not logged in',
  loginHint: 'Log in again with the CLI.',
  model: 'assistant-opus-4-20250514',
};

function fixture(name: string): string[] {
  const text = readFileSync(new URL(`./__fixtures__/cli-${name}.jsonl`, import.meta.url), 'utf8');
  return text.split('\n').filter((l) => l !== '');
}

/** Replays CLI lines the way the CLI backend does: parse, step, finish. */
function replay(lines: string[]) {
  const state = createCliTranslateState(options);
  const events: NativeStreamEvent[] = [];
  const retries: CliRetry[] = [];
  let error: unknown;
  for (const line of lines) {
    const step = stepCliLine(parseCliLine(line), state);
    events.push(...step.events);
    if (step.retry) retries.push(step.retry);
    if (step.error) error = step.error;
  }
  const end = finishCliLines(state);
  events.push(...end.events);
  return { events, retries, error: error ?? end.error };
}

/** The outcome as text: one native event per line, then the error (what a client would be told). */
function record(name: string): string {
  const { events, retries, error } = replay(fixture(name));
  const lines = [
    ...retries.map((r) => `retry ${JSON.stringify(r)}`),
    ...events.map((e) => JSON.stringify(e)),
    ...(error ? [`error ${JSON.stringify(error)} ${String((error as Error).message)}`] : []),
  ];
  return `${lines.join('\n')}\n`;
}

/** What /compat/v1/chat/completions would send for the recording, framed as SSE ("Compatible stream"). */
function compatSse(name: string): string {
  const state = createCompatChunkState({
    id: 'chatcmpl-1',
    model: options.model,
    created: 1700000000,
    includeUsage: true,
  });
  const { events, error } = replay(fixture(name));
  const chunks = events.flatMap((e) => stepCompatChunks(e, state));
  const end = finishCompatChunks(state);
  expect(error ?? end.error).toBeUndefined();
  return [...chunks, ...end.chunks].map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}

describe('CLI lines -> native events, replayed from the recordings', () => {
  it('partial.stdout: forwards the stream events once, with result usage at the end', () => {
    const { events, error } = replay(fixture('partial'));
    expect(error).toBeUndefined();
    expect(events).toEqual([
      {
        type: 'message_start',
        message: {
          id: 'msg_fake_4',
          type: 'message',
          role: 'assistant',
          model: 'claude-opus-5-5', // as the CLI reported it: the model the provider received
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: { input_tokens: 12, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
        },
      },
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi from ' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'fake!' } },
      { type: 'content_block_stop', index: 0 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 12, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
      { type: 'message_stop' },
    ]);
  });

  it.each(['partial', 'run1', 'ecut', 'e401', 'e429', 'e500', 'e529', 'nokey'])(
    '%s.stdout compared whole',
    async (name) => {
      await expect(record(name)).toMatchFileSnapshot(`./__fixtures__/cli-${name}.native.txt`);
    },
  );

  it.each(['partial', 'run1', 'ecut'])('%s.stdout as a compat SSE stream', async (name) => {
    await expect(compatSse(name)).toMatchFileSnapshot(`./__fixtures__/cli-${name}.compat.sse`);
  });

  it.each([
    ['e401', { kind: 'authentication', status: 401 }],
    ['nokey', { kind: 'authentication', status: 401 }],
    ['e429', { kind: 'rate_limit', status: 429, retryAfter: 2 }],
    ['e500', { kind: 'unavailable', status: 503 }],
    ['e529', { kind: 'unavailable', status: 503 }],
  ])('%s.stdout fails as %j', (name, expected) => {
    const { events, error } = replay(fixture(name));
    expect(events).toEqual([]);
    expect(error).toMatchObject(expected);
  });

  it('says how to log in again when the CLI is not logged in (docs/interface.md "Health errors")', () => {
    expect((replay(fixture('nokey')).error as Error).message).toBe(
      'The assistant CLI is not authenticated (Not logged in · Please run /login). Log in again with the CLI.',
    );
  });

  it('reports the retries the CLI made', () => {
    expect(replay(fixture('e429')).retries).toEqual([
      { attempt: 1, maxRetries: 1, delayMs: 1118, status: 429, error: 'rate_limit' },
    ]);
  });
});

describe('CLI lines -> native events, edge cases', () => {
  const lines = fixture('partial');

  it('a stream cut before the result line is an internal error, after the text already sent', () => {
    const { events, error } = replay(lines.slice(0, 6));
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
    ]);
    expect(error).toMatchObject({ kind: 'internal', status: 500, message: 'The assistant CLI ended without a result' });
  });

  it('a failure report without a result line still maps the failure', () => {
    expect(replay(fixture('e429').slice(0, 3)).error).toMatchObject({ kind: 'rate_limit' });
  });

  it("ignores garbage and unknown lines, and drops tool_use blocks of the CLI's own tools across turns", () => {
    const turn = (id: string, content: object[], stop: string) =>
      JSON.stringify({
        type: 'assistant',
        message: {
          id,
          model: 'm',
          role: 'assistant',
          content,
          stop_reason: stop,
          usage: { input_tokens: 3, output_tokens: 2 },
        },
      });
    const { events, error } = replay([
      'not json at all',
      turn(
        'm1',
        [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 't', name: 'Bash', input: { cmd: 'ls' } },
        ],
        'tool_use',
      ),
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'a b' }] },
      }),
      turn('m2', [{ type: 'text', text: 'Two files.' }], 'end_turn'),
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'Two files.',
        stop_reason: 'end_turn',
        usage: { input_tokens: 6, output_tokens: 4 },
      }),
    ]);
    expect(error).toBeUndefined();
    expect(events.slice(1)).toEqual([
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me look.' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Two files.' } },
      { type: 'content_block_stop', index: 1 },
      {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { input_tokens: 6, output_tokens: 4 },
      },
      { type: 'message_stop' },
    ]);
  });

  it('answers with the result text when no assistant output came', () => {
    const { events } = replay([
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'Hi',
        session_id: 's1',
        usage: { input_tokens: 1, output_tokens: 1 },
        stop_reason: 'end_turn',
      }),
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });
});
