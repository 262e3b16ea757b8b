import { describe, expect, it } from 'vitest';
import type { NativeStreamEvent } from '../native.js';
import { textStream, toolStream } from '../__fixtures__/native-events.js';
import {
  createNativeChatStreamState,
  finishNativeChatStream,
  stepNativeChatStream,
  type NativeChatStreamOptions,
} from './native-events-to-chat-stream.js';

const fixed: NativeChatStreamOptions = { model: 'assistant-sonnet-4-20250514', id: 'chatcmpl-1', created: 1700000000 };

function run(events: NativeStreamEvent[], options: NativeChatStreamOptions = fixed) {
  const state = createNativeChatStreamState(options);
  const out = events.flatMap((e) => stepNativeChatStream(e, state));
  return { events: out, error: finishNativeChatStream(state).error };
}

const chunk = {
  id: 'chatcmpl-1',
  object: 'chat.completion.chunk',
  created: 1700000000,
  model: 'assistant-sonnet-4-20250514',
} as const;

describe('native events -> native chat-completion stream (docs/interface.md "Native chat-completion stream")', () => {
  it('keeps message_start, text deltas and message_delta, each also a compatible chunk', () => {
    expect(run(textStream)).toEqual({
      events: [
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
            usage: { input_tokens: 12, output_tokens: 1 },
          },
          ...chunk,
          choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null, logprobs: null }],
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: 'Hi from ' },
          ...chunk,
          choices: [{ index: 0, delta: { content: 'Hi from ' }, finish_reason: null, logprobs: null }],
        },
        {
          type: 'content_block_delta',
          index: 0,
          delta: { type: 'text_delta', text: 'fake!' },
          ...chunk,
          choices: [{ index: 0, delta: { content: 'fake!' }, finish_reason: null, logprobs: null }],
        },
        {
          type: 'message_delta',
          delta: { stop_reason: 'end_turn' },
          ...chunk,
          choices: [{ index: 0, delta: {}, finish_reason: 'stop', logprobs: null }],
          usage: {
            output_tokens: 5,
            prompt_tokens: 12,
            completion_tokens: 5,
            total_tokens: 17,
            prompt_tokens_details: { cached_tokens: 0 },
          },
        },
      ],
      error: undefined,
    });
  });

  it('keeps the real block index of text after other blocks, and maps tool_use to tool_calls', () => {
    const { events } = run(toolStream);
    expect(events.filter((e) => e.type === 'content_block_delta')).toEqual([
      {
        type: 'content_block_delta',
        index: 1,
        delta: { type: 'text_delta', text: 'Checking.' },
        ...chunk,
        choices: [{ index: 0, delta: { content: 'Checking.' }, finish_reason: null, logprobs: null }],
      },
    ]);
    expect(events.at(-1)).toMatchObject({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use' },
      choices: [{ finish_reason: 'tool_calls' }],
      usage: {
        output_tokens: 40,
        prompt_tokens: 130,
        completion_tokens: 40,
        total_tokens: 170,
        prompt_tokens_details: { cached_tokens: 100 },
      },
    });
  });

  it('shows the id, model and time the route fixed on every event, the served model included', () => {
    const { events } = run(textStream, { model: 'gpt-4o', id: 'chatcmpl-7', created: 5 });
    expect(events.map((e) => [e.id, e.model, e.created])).toEqual([
      ['chatcmpl-7', 'gpt-4o', 5],
      ['chatcmpl-7', 'gpt-4o', 5],
      ['chatcmpl-7', 'gpt-4o', 5],
      ['chatcmpl-7', 'gpt-4o', 5],
    ]);
    expect(events[0]).toMatchObject({ message: { model: 'gpt-4o' } });
  });

  it('reports a stream without message_delta', () => {
    expect(run(textStream.slice(0, 5)).error).toMatchObject({ kind: 'upstream' });
  });

  it('turns an error event into the error to report, and sends nothing after it', () => {
    const state = createNativeChatStreamState({ ...fixed, created: 1 });
    const out = [
      textStream[0],
      { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } as NativeStreamEvent,
      textStream[3],
    ].flatMap((e) => stepNativeChatStream(e, state));
    expect(out.map((e) => e.type)).toEqual(['message_start']);
    expect(finishNativeChatStream(state).error).toMatchObject({ kind: 'unavailable' });
  });
});
