// The same native events must give the same finish_reason whether the compatible client streams or not
// (docs/interface.md "Chat completion", "Compatible stream"): the stream and the completion JSON share
// finishReasonWithToolCalls.
import { describe, expect, it } from 'vitest';
import type { NativeStreamEvent } from '../native.js';
import { toolStream } from '../__fixtures__/native-events.js';
import { createCompatChunkState, finishCompatChunks, stepCompatChunks } from './native-events-to-compat-chunks.js';
import { collectNativeMessage } from '../native-events-to-message.js';
import { nativeMessageToCompletion } from './native-message-to-completion.js';

const meta = { id: 'chatcmpl-1', created: 1700000000, model: 'assistant-sonnet-4-20250514' };

async function bothWays(events: NativeStreamEvent[]) {
  const state = createCompatChunkState({ ...meta, includeUsage: false });
  const chunks = events.flatMap((e) => stepCompatChunks(e, state));
  finishCompatChunks(state);
  const streamed = chunks.flatMap((c) => c.choices.map((ch) => ch.finish_reason)).filter((r) => r !== null);
  async function* replay() {
    yield* events;
  }
  const json = nativeMessageToCompletion(await collectNativeMessage(replay()), meta).choices[0].finish_reason;
  return { streamed, json };
}

/** The tool stream with another stop reason in its message_delta. */
function withStopReason(reason: 'end_turn' | 'tool_use'): NativeStreamEvent[] {
  return toolStream.map((e) => (e.type === 'message_delta' ? { ...e, delta: { ...e.delta, stop_reason: reason } } : e));
}

describe('finish_reason, streamed and not', () => {
  it('a tool call with stop reason end_turn is tool_calls both ways', async () => {
    expect(await bothWays(withStopReason('end_turn'))).toEqual({ streamed: ['tool_calls'], json: 'tool_calls' });
  });

  it('tool_use with a tool call is tool_calls both ways', async () => {
    expect(await bothWays(withStopReason('tool_use'))).toEqual({ streamed: ['tool_calls'], json: 'tool_calls' });
  });

  it('tool_use without any tool call is stop both ways', async () => {
    const noTools = withStopReason('tool_use').filter((e) => !('index' in e) || e.index === 0);
    const textOnly = noTools.filter((e) => !(e.type === 'content_block_start' && e.content_block.type === 'tool_use'));
    const result = await bothWays(
      textOnly.filter((e) => !(e.type === 'content_block_delta' && e.delta.type === 'input_json_delta')),
    );
    expect(result).toEqual({ streamed: ['stop'], json: 'stop' });
  });
});
