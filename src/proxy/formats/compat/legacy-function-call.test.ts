import { describe, expect, it } from 'vitest';
import type { CompatChunk, CompatCompletion } from './schema.js';
import { chunkToLegacyFunctionCall, completionToLegacyFunctionCall } from './completion-to-legacy-function-call.js';
import { legacyFunctionsToTools } from './legacy-functions-to-tools.js';

const fn = { name: 'get_weather', parameters: { type: 'object' } };

describe('legacyFunctionsToTools', () => {
  it('takes functions and function_call as tools and tool_choice, and the history with ids of its own', () => {
    const { body, legacy } = legacyFunctionsToTools({
      model: 'm',
      functions: [fn],
      function_call: { name: 'get_weather' },
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        { role: 'function', name: 'get_weather', content: 'snow' },
      ],
    });
    expect(legacy).toBe(true);
    expect(body).toEqual({
      model: 'm',
      tools: [{ type: 'function', function: fn }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [
        { role: 'user', content: 'weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_legacy_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_legacy_1', content: 'snow' },
      ],
    });
  });

  it('leaves a request with tools or without functions unchanged', () => {
    const withTools = { functions: [fn], tools: [{ type: 'function', function: fn }], messages: [] };
    expect(legacyFunctionsToTools(withTools)).toEqual({ body: withTools, legacy: false });
    expect(legacyFunctionsToTools({ messages: [] })).toEqual({ body: { messages: [] }, legacy: false });
  });
});

const completion: CompatCompletion = {
  id: 'c',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [
    {
      index: 0,
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 't1', type: 'function', function: { name: 'a', arguments: '{"x":1}' } },
          { id: 't2', type: 'function', function: { name: 'b', arguments: '{}' } },
        ],
        refusal: null,
      },
      finish_reason: 'tool_calls',
      logprobs: null,
    },
  ],
  usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
};

const chunk = (
  delta: CompatChunk['choices'][0]['delta'],
  finish: CompatChunk['choices'][0]['finish_reason'] = null,
): CompatChunk => ({
  id: 'c',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'm',
  choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
});

describe('the legacy answer form', () => {
  it('gives the first call as function_call with finish_reason function_call', () => {
    expect(completionToLegacyFunctionCall(completion).choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: null, function_call: { name: 'a', arguments: '{"x":1}' }, refusal: null },
      finish_reason: 'function_call',
      logprobs: null,
    });
  });

  it('streams call 0 as function_call deltas, drops the others, and maps the finish reason', () => {
    expect(
      chunkToLegacyFunctionCall(
        chunk({ tool_calls: [{ index: 0, id: 't1', type: 'function', function: { name: 'a', arguments: '' } }] }),
      )?.choices[0].delta,
    ).toEqual({
      function_call: { name: 'a', arguments: '' },
    });
    expect(
      chunkToLegacyFunctionCall(chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x"' } }] }))?.choices[0]
        .delta,
    ).toEqual({ function_call: { arguments: '{"x"' } });
    expect(
      chunkToLegacyFunctionCall(chunk({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] })),
    ).toBeUndefined();
    expect(chunkToLegacyFunctionCall(chunk({}, 'tool_calls'))?.choices[0].finish_reason).toBe('function_call');
    const text = chunk({ content: 'hi' });
    expect(chunkToLegacyFunctionCall(text)).toBe(text);
  });
});
