import { describe, expect, it } from 'vitest';
import { nativeChatRequestSchema } from '../native-schemas.js';
import { nativeChatRequestToNative, parseNativeChatRequest } from './native-chat-request-to-native.js';

describe('nativeChatRequestToNative (docs/interface.md "Native chat request")', () => {
  it('copies the native fields', () => {
    const body = nativeChatRequestSchema.parse({
      model: 'assistant-sonnet-4-20250514',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'bye' },
      ],
      max_tokens: 50,
      temperature: 0.2,
      top_p: 0.8,
      top_k: 10,
      stream: true,
      stop_sequences: ['END'],
      system: 'be brief',
    });
    expect(nativeChatRequestToNative(body)).toEqual({
      model: 'assistant-sonnet-4-20250514',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
        { role: 'user', content: 'bye' },
      ],
      max_tokens: 50,
      system: 'be brief',
      temperature: 0.2,
      top_p: 0.8,
      top_k: 10,
      stop_sequences: ['END'],
      stream: true,
    });
  });

  it('folds system messages into system and merges consecutive turns of one role', () => {
    const body = nativeChatRequestSchema.parse({
      model: 'm',
      messages: [
        { role: 'system', content: 'from messages' },
        { role: 'user', content: 'a' },
        { role: 'user', content: [{ type: 'text', text: 'b' }] },
      ],
      max_tokens: 5,
      system: 'from field',
    });
    expect(nativeChatRequestToNative(body)).toEqual({
      model: 'm',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'a' },
            { type: 'text', text: 'b' },
          ],
        },
      ],
      max_tokens: 5,
      system: 'from field\n\nfrom messages',
    });
  });

  it('refuses a conversation with only system messages', () => {
    const body = nativeChatRequestSchema.parse({
      model: 'm',
      messages: [{ role: 'system', content: 's' }],
      max_tokens: 5,
    });
    expect(() => nativeChatRequestToNative(body)).toThrow(expect.objectContaining({ field: 'messages', status: 400 }));
  });
});

describe('parseNativeChatRequest (docs/interface.md "Native chat request")', () => {
  const messages = [{ role: 'user', content: 'hi' }];

  it('points a body without max_tokens (an OpenAI-format client at /v1) to /compat/v1', () => {
    let caught: unknown;
    try {
      parseNativeChatRequest({ model: 'assistant-sonnet-4-20250514', messages });
    } catch (err) {
      caught = err;
    }
    expect(caught).toMatchObject({ kind: 'invalid_request', status: 400, field: 'max_tokens', issue: 'is required' });
    expect((caught as Error).message).toContain('/compat/v1');
  });

  it('gives other invalid values the ordinary field error', () => {
    expect(() => parseNativeChatRequest({ model: 'm', messages, max_tokens: 0 })).toThrow(
      expect.objectContaining({ field: 'max_tokens', issue: 'must be a positive integer' }) as Error,
    );
    expect(() => parseNativeChatRequest({ model: 'm', messages: [], max_tokens: 5 })).toThrow(
      expect.objectContaining({ field: 'messages' }) as Error,
    );
  });

  it('returns the validated body', () => {
    expect(parseNativeChatRequest({ model: 'm', messages, max_tokens: 5 })).toEqual({
      model: 'm',
      messages,
      max_tokens: 5,
    });
  });
});
