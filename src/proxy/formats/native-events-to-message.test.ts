import { describe, expect, it } from 'vitest';
import type { NativeStreamEvent } from './native.js';
import { textStream, toolStream } from './__fixtures__/native-events.js';
import {
  collectNativeMessage,
  createNativeMessageState,
  finishNativeMessage,
  stepNativeMessage,
} from './native-events-to-message.js';

function collect(events: NativeStreamEvent[]) {
  const state = createNativeMessageState();
  for (const e of events) stepNativeMessage(e, state);
  return finishNativeMessage(state);
}

async function* from(events: NativeStreamEvent[]): AsyncIterable<NativeStreamEvent> {
  yield* events;
}

describe('native events -> one native message', () => {
  it('concatenates text and merges usage from message_start and message_delta', async () => {
    expect(await collectNativeMessage(from(textStream))).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-20250514',
      content: [{ type: 'text', text: 'Hi from fake!' }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 12, output_tokens: 5 },
    });
  });

  it('assembles thinking and tool input JSON', () => {
    expect(collect(toolStream)).toEqual({
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-20250514',
        content: [
          { type: 'thinking', thinking: 'Two cities.', signature: 'sig' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_use', id: 'toolu_a', name: 'weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_b', name: 'weather', input: { city: 'Rome' } },
        ],
        stop_reason: 'tool_use',
        stop_sequence: null,
        usage: { input_tokens: 30, output_tokens: 40, cache_read_input_tokens: 100 },
      },
      warnings: [],
    });
  });

  it('keeps a cut tool input as it was, with a warning', () => {
    const cut = [...toolStream.slice(0, 11), { type: 'content_block_stop', index: 2 } as const, toolStream.at(-2)!];
    const result = collect(cut);
    expect(result.message?.content[2]).toEqual({ type: 'tool_use', id: 'toolu_a', name: 'weather', input: {} });
    expect(result.warnings).toEqual(['tool_use block 2 (weather) ended with incomplete input JSON']);
  });

  it('fails on a stream without a stop reason and on an error event', async () => {
    await expect(collectNativeMessage(from(textStream.slice(0, 5)))).rejects.toMatchObject({
      kind: 'upstream',
      message: 'The provider stream ended without a stop reason',
    });
    await expect(
      collectNativeMessage(
        from([textStream[0], { type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } }]),
      ),
    ).rejects.toMatchObject({ kind: 'rate_limit', status: 429, message: 'slow down' });
  });
});
