import { describe, expect, it } from 'vitest';
import {
  ConversationBuilder,
  imageBlockOfUrl,
  parseToolArguments,
  textBlocks,
  textOf,
} from './conversation-builder.js';

describe('the client formats share one conversation builder', () => {
  it('joins system texts by a blank line, in order, leaving empty ones out', () => {
    const c = new ConversationBuilder();
    expect(c.systemText()).toBeUndefined();
    for (const text of ['one', '', null, undefined, 'two']) c.addSystem(text);
    expect(c.systemText()).toBe('one\n\ntwo');
  });

  it('merges consecutive messages of one role, a string content becoming a text block', () => {
    const c = new ConversationBuilder();
    c.append('user', 'hi');
    c.append('user', [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }]);
    c.append('assistant', '');
    c.append('user', 'again');
    expect(c.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'hi' },
          { type: 'tool_result', tool_use_id: 't1', content: 'r' },
        ],
      },
      { role: 'assistant', content: '' },
      { role: 'user', content: 'again' },
    ]);
  });

  it('leaves an empty message out, with the warning only where the format asks for one', () => {
    const warnings: string[] = [];
    const c = new ConversationBuilder(warnings);
    c.push('user', []);
    c.pushOrWarn('assistant', [], 'messages.1 (assistant)');
    c.pushOrWarn('user', [{ type: 'text', text: 'a' }], 'messages.2 (user)');
    c.push('user', [{ type: 'text', text: 'b' }]);
    expect(warnings).toEqual(['messages.1 (assistant) has no content and was left out']);
    expect(c.nonEmptyMessages()).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'a' },
          { type: 'text', text: 'b' },
        ],
      },
    ]);
  });

  it('refuses a conversation with nothing to answer', () => {
    const c = new ConversationBuilder();
    c.addSystem('only a system text');
    expect(() => c.nonEmptyMessages()).toThrow(
      'Invalid request: messages must contain at least one user or assistant message',
    );
  });
});

describe('content the formats read the same way', () => {
  it('text: no block for an empty text; parts join their text', () => {
    expect(textBlocks('')).toEqual([]);
    expect(textBlocks(null)).toEqual([]);
    expect(textBlocks('x')).toEqual([{ type: 'text', text: 'x' }]);
    expect(
      textOf([
        { type: 'text', text: 'a' },
        { type: 'image', text: 'not text' },
        { type: 'text', text: 'b' },
      ]),
    ).toBe('ab');
  });

  it('images: a base64 data URL or an http(s) URL, anything else a 400 on the field', () => {
    expect(imageBlockOfUrl('data:image/png;base64,AA\nBB', 'f')).toEqual({
      type: 'image',
      source: { type: 'base64', media_type: 'image/png', data: 'AA\nBB' },
    });
    expect(imageBlockOfUrl('HTTPS://x.example/a.png', 'f')).toEqual({
      type: 'image',
      source: { type: 'url', url: 'HTTPS://x.example/a.png' },
    });
    expect(() => imageBlockOfUrl('data:image/png,AA', 'f')).toThrow(
      'Invalid request: f must be a base64 data URL (data:<type>;base64,...)',
    );
    expect(() => imageBlockOfUrl('ftp://x/a.png', 'f')).toThrow(
      'Invalid request: f must be a data: URL or an http(s) URL',
    );
  });

  it('tool arguments: blank is no arguments; each format words its own 400s', () => {
    const objectOnly = { invalidJson: 'must be valid JSON', notAnObject: 'must be a JSON object' };
    expect(parseToolArguments('  ', 'a', objectOnly)).toEqual({});
    expect(parseToolArguments('{"x":1}', 'a', objectOnly)).toEqual({ x: 1 });
    expect(() => parseToolArguments('{bad', 'a', objectOnly)).toThrow('Invalid request: a must be valid JSON');
    expect(() => parseToolArguments('[1,2]', 'a', objectOnly)).toThrow('Invalid request: a must be a JSON object');
    // Without notAnObject any JSON value is the input (the Responses format passes it on).
    expect(parseToolArguments('[1,2]', 'a', { invalidJson: 'must be valid JSON' })).toEqual([1, 2]);
  });
});
