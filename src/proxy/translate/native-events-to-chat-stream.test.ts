import { describe, expect, it } from 'vitest';
import type { NativeStreamEvent } from '../formats/native.js';
import { textStream, toolStream } from './__fixtures__/native-events.js';
import { createNativeChatStreamState, finishNativeChatStream, stepNativeChatStream } from './native-events-to-chat-stream.js';

function run(events: NativeStreamEvent[]) {
  const state = createNativeChatStreamState({ model: 'assistant-sonnet-4-20250514' });
  const out = events.flatMap((e) => stepNativeChatStream(e, state));
  return { events: out, error: finishNativeChatStream(state).error };
}

describe('native events -> native chat-completion stream (SPEC.md §6.2)', () => {
  it('keeps message_start, text deltas and message_delta only', () => {
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
        },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hi from ' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'fake!' } },
        { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } },
      ],
      error: undefined,
    });
  });

  it('keeps the real block index of text after other blocks', () => {
    expect(run(toolStream).events.filter((e) => e.type === 'content_block_delta')).toEqual([
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Checking.' } },
    ]);
  });

  it('reports a stream without message_delta', () => {
    expect(run(textStream.slice(0, 5)).error).toMatchObject({ kind: 'upstream' });
  });
});
