import { describe, expect, it } from 'vitest';
import type { NativeMessageParam } from '../formats/native.js';
import { continuesHistory, historyAfterTurn } from './conversation-history.js';

const first: NativeMessageParam[] = [{ role: 'user', content: 'My name is Ada.' }];
const history = historyAfterTurn(first, 'Hello Ada!\n\nHow can I help?');
const next = (assistant: NativeMessageParam['content'], user: NativeMessageParam['content'] = 'What is my name?'): NativeMessageParam[] => [
  ...first,
  { role: 'assistant', content: assistant },
  { role: 'user', content: user },
];

describe('continuesHistory', () => {
  it('is true for the history plus one new user message, the answer re-sent as it was streamed', () => {
    expect(continuesHistory(history, next('Hello Ada!\n\nHow can I help?'))).toBe(true);
  });

  it('ignores whitespace, string versus text blocks, thinking blocks and cache marks', () => {
    expect(continuesHistory(history, next(' Hello Ada! How can I help? '))).toBe(true);
    expect(
      continuesHistory(
        history,
        next([
          { type: 'thinking', thinking: 'a name', signature: 's' },
          { type: 'text', text: 'Hello Ada!' },
          { type: 'text', text: 'How can I help?', cache_control: { type: 'ephemeral' } },
        ]),
      ),
    ).toBe(true);
    const blocks: NativeMessageParam[] = [{ role: 'user', content: [{ type: 'text', text: 'My name is Ada.' }] }, ...next('Hello Ada! How can I help?').slice(1)];
    expect(continuesHistory(history, blocks)).toBe(true);
  });

  it('is false for an edited answer or question, another role order, a shortened or longer history, a prefill', () => {
    expect(continuesHistory(history, next('Hello Grace!\n\nHow can I help?'))).toBe(false);
    expect(continuesHistory(history, [{ role: 'user', content: 'My name is Grace.' }, ...next('Hello Ada!\n\nHow can I help?').slice(1)])).toBe(false);
    expect(continuesHistory(history, first)).toBe(false);
    expect(continuesHistory(history, [...next('Hello Ada!\n\nHow can I help?'), { role: 'assistant', content: 'x' }, { role: 'user', content: 'y' }])).toBe(false);
    expect(continuesHistory(history, [...first, { role: 'assistant', content: 'Hello Ada!\n\nHow can I help?' }, { role: 'assistant', content: 'Sure' }])).toBe(false);
    expect(continuesHistory([], first)).toBe(false);
  });

  it('counts tool calls and results with their ids and contents', () => {
    const withTool = historyAfterTurn([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny' }] }], 'It is sunny.');
    const again = (content: string): NativeMessageParam[] => [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content }] },
      { role: 'assistant', content: 'It is sunny.' },
      { role: 'user', content: 'thanks' },
    ];
    expect(continuesHistory(withTool, again('sunny'))).toBe(true);
    expect(continuesHistory(withTool, again('rainy'))).toBe(false);
  });
});
