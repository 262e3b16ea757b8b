import { describe, expect, it } from 'vitest';
import type { NativeMessage, NativeStreamEvent } from '../native.js';
import {
  createOllamaStreamState,
  finishOllamaStream,
  nativeMessageToOllama,
  stepOllamaStream,
} from './native-to-ollama.js';

const started = Date.UTC(2026, 10, 27, 12, 0, 0);

function clock(...times: number[]) {
  let i = 0;
  return () => times[Math.min(i++, times.length - 1)];
}

const events: NativeStreamEvent[] = [
  {
    type: 'message_start',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'assistant-sonnet-4-20250514',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: ' there' } },
  { type: 'content_block_stop', index: 0 },
  {
    type: 'content_block_start',
    index: 1,
    content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} },
  },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"city":' } },
  { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } },
  { type: 'content_block_stop', index: 1 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 12 } },
  { type: 'message_stop' },
];

describe('native stream -> Ollama NDJSON lines', () => {
  it("writes each text delta, the tool call whole, then the done line with the provider's counts", () => {
    const state = createOllamaStreamState(
      { kind: 'chat', model: 'assistant-sonnet-4-20250514', startedAt: started },
      clock(started + 100, started + 150, started + 200, started + 400),
    );
    const lines = events.flatMap((e) => stepOllamaStream(e, state));
    expect(finishOllamaStream(state)).toEqual({ lines: [] });
    expect(lines).toEqual([
      {
        model: 'assistant-sonnet-4-20250514',
        created_at: '2026-11-27T12:00:00.100Z',
        message: { role: 'assistant', content: 'Hi' },
        done: false,
      },
      {
        model: 'assistant-sonnet-4-20250514',
        created_at: '2026-11-27T12:00:00.150Z',
        message: { role: 'assistant', content: ' there' },
        done: false,
      },
      {
        model: 'assistant-sonnet-4-20250514',
        created_at: '2026-11-27T12:00:00.200Z',
        message: {
          role: 'assistant',
          content: '',
          tool_calls: [{ id: 'toolu_1', function: { index: 0, name: 'get_weather', arguments: { city: 'Paris' } } }],
        },
        done: false,
      },
      {
        model: 'assistant-sonnet-4-20250514',
        created_at: '2026-11-27T12:00:00.400Z',
        message: { role: 'assistant', content: '' },
        done: true,
        done_reason: 'stop',
        total_duration: 400_000_000,
        load_duration: 0,
        prompt_eval_count: 17,
        prompt_eval_duration: 100_000_000,
        eval_count: 12,
        eval_duration: 300_000_000,
      },
    ]);
  });

  it('writes generate lines as `response`, leaves tool calls out, and says length when max_tokens stopped it', () => {
    const state = createOllamaStreamState({ kind: 'generate', model: 'm', startedAt: started }, clock(started + 10));
    const cut = events.map((e) =>
      e.type === 'message_delta' ? { ...e, delta: { stop_reason: 'max_tokens' } } : e,
    ) as NativeStreamEvent[];
    const lines = cut.flatMap((e) => stepOllamaStream(e, state));
    expect(lines.map((l) => ('response' in l ? l.response : undefined))).toEqual(['Hi', ' there', '']);
    expect(lines.at(-1)).toMatchObject({ done: true, done_reason: 'length', eval_count: 12 });
  });

  it('reports a stream that ended without a stop reason, and an error event, instead of a made-up done line', () => {
    const state = createOllamaStreamState({ kind: 'chat', model: 'm', startedAt: started }, clock(started));
    for (const e of events.slice(0, 4)) stepOllamaStream(e, state);
    expect(finishOllamaStream(state).error?.message).toMatch(/without a stop reason/);
    const failed = createOllamaStreamState({ kind: 'chat', model: 'm', startedAt: started }, clock(started));
    stepOllamaStream({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, failed);
    expect(finishOllamaStream(failed).error).toMatchObject({ kind: 'unavailable', message: 'Overloaded' });
  });
});

describe('a whole native message -> one Ollama answer', () => {
  it('joins text and thinking, and lists the calls with their ids', () => {
    const message: NativeMessage = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'x',
      content: [
        { type: 'thinking', thinking: 'Let me see.', signature: 's' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_2', name: 'get_time', input: { city: 'Oslo' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 4 },
    };
    expect(nativeMessageToOllama(message, { kind: 'chat', model: 'm', startedAt: started }, started + 50)).toEqual({
      model: 'm',
      created_at: '2026-11-27T12:00:00.050Z',
      message: {
        role: 'assistant',
        content: 'Checking.',
        thinking: 'Let me see.',
        tool_calls: [{ id: 'toolu_2', function: { index: 0, name: 'get_time', arguments: { city: 'Oslo' } } }],
      },
      done: true,
      done_reason: 'stop',
      total_duration: 50_000_000,
      load_duration: 0,
      prompt_eval_count: 3,
      prompt_eval_duration: 0,
      eval_count: 4,
      eval_duration: 50_000_000,
    });
  });
});
