import { describe, expect, it } from 'vitest';
import type { NativeStreamEvent } from '../native.js';
import { textStream, toolStream } from '../__fixtures__/native-events.js';
import { createCompatChunkState, finishCompatChunks, stepCompatChunks } from './native-events-to-compat-chunks.js';

const head = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1700000000,
  model: 'assistant-sonnet-4-20250514',
};
const options = { id: 'chatcmpl-1', created: 1700000000, model: 'assistant-sonnet-4-20250514', includeUsage: false };

function run(events: NativeStreamEvent[], includeUsage = false) {
  const state = createCompatChunkState({ ...options, includeUsage });
  const chunks = events.flatMap((e) => stepCompatChunks(e, state));
  const end = finishCompatChunks(state);
  return { chunks: [...chunks, ...end.chunks], error: end.error };
}

const choice = (delta: object, finish_reason: string | null = null) => ({
  ...head,
  choices: [{ index: 0, delta, finish_reason, logprobs: null }],
});

describe('native events -> compat chunks (docs/interface.md "Compatible stream")', () => {
  it('role first, every text delta on its own, then an empty delta with the finish reason', () => {
    expect(run(textStream)).toEqual({
      chunks: [
        choice({ role: 'assistant', content: '' }),
        choice({ content: 'Hi from ' }),
        choice({ content: 'fake!' }),
        choice({}, 'stop'),
      ],
      error: undefined,
    });
  });

  it('adds the usage chunk with empty choices after the finish chunk when asked', () => {
    const { chunks } = run(textStream, true);
    expect(chunks.slice(-2)).toEqual([
      choice({}, 'stop'),
      {
        ...head,
        choices: [],
        usage: {
          prompt_tokens: 12,
          completion_tokens: 5,
          total_tokens: 17,
          prompt_tokens_details: { cached_tokens: 0 },
        },
      },
    ]);
  });

  it('streams tool calls with a tool-call index, id, type and name first, then argument pieces', () => {
    expect(run(toolStream, true).chunks).toEqual([
      choice({ role: 'assistant', content: '' }),
      choice({ content: 'Checking.' }),
      choice({
        tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'weather', arguments: '' } }],
      }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
      choice({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
      choice({
        tool_calls: [{ index: 1, id: 'toolu_b', type: 'function', function: { name: 'weather', arguments: '' } }],
      }),
      choice({ tool_calls: [{ index: 1, function: { arguments: '{"city":"Rome"}' } }] }),
      choice({}, 'tool_calls'),
      {
        ...head,
        choices: [],
        usage: {
          prompt_tokens: 130,
          completion_tokens: 40,
          total_tokens: 170,
          prompt_tokens_details: { cached_tokens: 100 },
        },
      },
    ]);
  });

  it('reports a stream that ended without a stop reason, and never invents a finish_reason', () => {
    const { chunks, error } = run(textStream.slice(0, 5));
    expect(chunks.every((c) => c.choices.every((ch) => ch.finish_reason === null))).toBe(true);
    expect(error).toMatchObject({ kind: 'upstream', message: 'The provider stream ended without a stop reason' });
  });

  it('turns an error event into the finish error and sends nothing after it', () => {
    const events: NativeStreamEvent[] = [
      ...textStream.slice(0, 4),
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      ...textStream.slice(4),
    ];
    const { chunks, error } = run(events);
    expect(chunks).toEqual([choice({ role: 'assistant', content: '' }), choice({ content: 'Hi from ' })]);
    expect(error).toMatchObject({ kind: 'unavailable', status: 503, message: 'Overloaded' });
  });
});
