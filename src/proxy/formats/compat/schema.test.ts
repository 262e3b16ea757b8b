import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../errors.js';
import { compatChatRequestSchema } from './schema.js';
import { validate } from '../validate.js';

function issueOf(body: unknown): { field?: string; issue?: string } {
  try {
    validate(compatChatRequestSchema, body);
  } catch (err) {
    if (err instanceof ProxyError) return { field: err.field, issue: err.issue };
    throw err;
  }
  throw new Error('expected a ProxyError');
}

const minimal = { model: 'assistant-sonnet-4-20250514', messages: [{ role: 'user', content: 'hi' }] };

describe('compatChatRequestSchema (docs/interface.md "Compatible chat request")', () => {
  it('accepts every role, parts, tools and options, with nulls for unset options', () => {
    const body = {
      ...minimal,
      messages: [
        { role: 'system', content: 'sys' },
        { role: 'developer', content: [{ type: 'text', text: 'dev' }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'see' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA', detail: 'auto' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      ],
      tools: [{ type: 'function', function: { name: 'get', parameters: { type: 'object' } } }],
      tool_choice: { type: 'function', function: { name: 'get' } },
      response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
      temperature: 2,
      presence_penalty: -2,
      frequency_penalty: 2,
      stop: null,
      n: 1,
      seed: 7,
      logprobs: false,
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 50,
      user: 'u',
      reasoning_effort: 'low',
    };
    expect(validate(compatChatRequestSchema, body)).toEqual(body);
  });

  it.each([
    [{ ...minimal, temperature: 2.5 }, 'temperature', 'must be between 0 and 2'],
    [{ ...minimal, presence_penalty: 3 }, 'presence_penalty', 'must be between -2 and 2'],
    [{ ...minimal, frequency_penalty: -2.5 }, 'frequency_penalty', 'must be between -2 and 2'],
    [{ ...minimal, n: 2 }, 'n', 'must be 1 (only one choice is supported)'],
    [{ ...minimal, max_tokens: -1 }, 'max_tokens', 'must be a positive integer'],
    [{ ...minimal, stop: 5 }, 'stop', 'has an unsupported shape'],
    [{ ...minimal, tool_choice: 'always' }, 'tool_choice', 'has an unsupported shape'],
    [{ ...minimal, messages: [{ role: 'tool', content: 'x' }] }, 'messages.0.tool_call_id', 'is required'],
    [
      { ...minimal, messages: [{ role: 'function', content: 'x' }] },
      'messages.0.role',
      'must be one of "system", "developer", "user", "assistant", "tool"',
    ],
    [
      { ...minimal, messages: [{ role: 'user', content: [{ type: 'input_audio' }] }] },
      'messages.0.content',
      'has an unsupported shape',
    ],
    [{ messages: minimal.messages }, 'model', 'is required'],
  ])('%j -> %s %s', (body, field, issue) => {
    expect(issueOf(body)).toEqual({ field, issue });
  });
});
