import { describe, expect, it } from 'vitest';
import { nativeChatRequestSchema } from '../formats/native-schemas.js';
import { nativeChatRequestToNative } from './native-chat-request-to-native.js';

describe('nativeChatRequestToNative (SPEC.md §2.1)', () => {
  it('copies the native fields', () => {
    const body = nativeChatRequestSchema.parse({
      model: 'assistant-sonnet-4-20250514',
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'bye' }],
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
      messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }, { role: 'user', content: 'bye' }],
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
      messages: [{ role: 'user', content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] }],
      max_tokens: 5,
      system: 'from field\n\nfrom messages',
    });
  });

  it('refuses a conversation with only system messages', () => {
    const body = nativeChatRequestSchema.parse({ model: 'm', messages: [{ role: 'system', content: 's' }], max_tokens: 5 });
    expect(() => nativeChatRequestToNative(body)).toThrow(expect.objectContaining({ field: 'messages', status: 400 }));
  });
});
