import { describe, expect, it } from 'vitest';
import type { NativeMessage } from '../native.js';
import { nativeMessageToCompletion } from './native-message-to-completion.js';

const meta = { id: 'chatcmpl-1', model: 'assistant-sonnet-4-20250514', created: 1700000000 };

const base: NativeMessage = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-20250514',
  content: [],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 12, output_tokens: 5 },
};

describe('nativeMessageToCompletion (docs/interface.md "Chat completion")', () => {
  it('joins text and maps usage', () => {
    const message: NativeMessage = {
      ...base,
      content: [
        { type: 'thinking', thinking: 'hmm' },
        { type: 'text', text: 'Hi ' },
        { type: 'text', text: 'there' },
      ],
      usage: { input_tokens: 12, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20 },
    };
    expect(nativeMessageToCompletion(message, meta)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion',
      created: 1700000000,
      model: 'assistant-sonnet-4-20250514',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hi there', refusal: null },
          finish_reason: 'stop',
          logprobs: null,
        },
      ],
      usage: {
        prompt_tokens: 132,
        completion_tokens: 5,
        total_tokens: 137,
        prompt_tokens_details: { cached_tokens: 100 },
      },
    });
  });

  it('returns tool_calls with finish_reason tool_calls and null content', () => {
    const message: NativeMessage = {
      ...base,
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Paris' } }],
    };
    expect(nativeMessageToCompletion(message, meta).choices).toEqual([
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          ],
          refusal: null,
        },
        finish_reason: 'tool_calls',
        logprobs: null,
      },
    ]);
  });

  it('never says tool_calls without the array (docs/lessons.md "Streams and clients")', () => {
    const message: NativeMessage = { ...base, stop_reason: 'tool_use', content: [{ type: 'text', text: 'x' }] };
    expect(nativeMessageToCompletion(message, meta).choices[0].finish_reason).toBe('stop');
  });

  it.each([
    ['max_tokens', 'length'],
    ['refusal', 'content_filter'],
    ['stop_sequence', 'stop'],
  ])('stop_reason %s -> finish_reason %s', (reason, finish) => {
    expect(nativeMessageToCompletion({ ...base, stop_reason: reason }, meta).choices[0].finish_reason).toBe(finish);
  });
});
