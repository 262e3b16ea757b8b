import { describe, expect, it } from 'vitest';
import { ProxyError } from '../errors.js';
import { nativeChatRequestSchema, nativeMessagesRequestSchema } from './native-schemas.js';
import { validate } from './validate.js';

function failure(fn: () => unknown): { field?: string; issue?: string; status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ProxyError)
      return { field: err.field, issue: err.issue, status: err.status, message: err.message };
    throw err;
  }
  throw new Error('expected a ProxyError');
}

const minimal = { model: 'assistant-sonnet-4-20250514', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] };

describe('nativeMessagesRequestSchema', () => {
  it('accepts a minimal request and passes unknown fields through', () => {
    expect(validate(nativeMessagesRequestSchema, { ...minimal, thinking: { type: 'enabled' } })).toEqual({
      ...minimal,
      thinking: { type: 'enabled' },
    });
  });

  it('accepts blocks, system blocks, tools and tool_choice', () => {
    const body = {
      ...minimal,
      system: [{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'look' },
            { type: 'image', source: { type: 'url', url: 'https://x/y.png' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get', input: { a: 1 } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
      ],
      tools: [{ name: 'get', input_schema: { type: 'object' } }],
      tool_choice: { type: 'tool', name: 'get' },
      temperature: 1,
      top_k: 0,
    };
    expect(validate(nativeMessagesRequestSchema, body)).toEqual(body);
  });

  it('names the field of a range error (docs/interface.md "Limits": native temperature 0 to 1)', () => {
    expect(failure(() => validate(nativeMessagesRequestSchema, { ...minimal, temperature: 1.5 }))).toEqual({
      field: 'temperature',
      issue: 'must be between 0 and 1',
      status: 400,
      message: 'Invalid request: temperature must be between 0 and 1',
    });
  });

  it.each([
    [{ ...minimal, max_tokens: undefined }, 'max_tokens', 'is required'],
    [{ ...minimal, max_tokens: 0 }, 'max_tokens', 'must be a positive integer'],
    [{ ...minimal, max_tokens: 1.5 }, 'max_tokens', 'must be an integer'],
    [{ ...minimal, messages: [] }, 'messages', 'must contain at least one message'],
    [
      { ...minimal, messages: [{ role: 'tool', content: 'x' }] },
      'messages.0.role',
      'must be one of "user", "assistant"',
    ],
    [
      { ...minimal, messages: [{ role: 'user', content: [{ type: 'audio' }] }] },
      'messages.0.content',
      'has an unsupported shape',
    ],
    [{ ...minimal, top_p: -0.1 }, 'top_p', 'must be between 0 and 1'],
    [{ ...minimal, top_k: -1 }, 'top_k', 'must be at least 0'],
    [{ ...minimal, temperature: '0.5' }, 'temperature', 'must be a number'],
    [{ ...minimal, stop_sequences: 'x' }, 'stop_sequences', 'must be an array'],
    [{ ...minimal, tool_choice: { type: 'some' } }, 'tool_choice.type', 'must be one of "auto", "any", "tool", "none"'],
    ['not an object', 'body', 'must be an object'],
  ])('%j -> %s %s', (body, field, issue) => {
    expect(failure(() => validate(nativeMessagesRequestSchema, body))).toMatchObject({ field, issue, status: 400 });
  });
});

describe('nativeChatRequestSchema (docs/interface.md "Native chat request")', () => {
  it('accepts the documented fields', () => {
    const body = {
      ...minimal,
      temperature: 0.7,
      top_p: 0.9,
      top_k: 40,
      stream: true,
      stop_sequences: ['END'],
      system: 'be brief',
    };
    expect(validate(nativeChatRequestSchema, body)).toEqual(body);
  });

  it('requires max_tokens and keeps temperature within 0 to 1', () => {
    expect(failure(() => validate(nativeChatRequestSchema, { ...minimal, max_tokens: undefined }))).toMatchObject({
      field: 'max_tokens',
      issue: 'is required',
    });
    expect(failure(() => validate(nativeChatRequestSchema, { ...minimal, temperature: 1.2 }))).toMatchObject({
      field: 'temperature',
      issue: 'must be between 0 and 1',
    });
  });
});
