import { describe, expect, it } from 'vitest';
import type { NativeMessageParam } from '../../../formats/native.js';
import { AnswerRecorder, continuesHistory, historyAfterTurn } from './conversation-history.js';

const first: NativeMessageParam[] = [{ role: 'user', content: 'My name is Ada.' }];
const history = historyAfterTurn(first, 'Hello Ada!\n\nHow can I help?');
const next = (
  assistant: NativeMessageParam['content'],
  user: NativeMessageParam['content'] = 'What is my name?',
): NativeMessageParam[] => [...first, { role: 'assistant', content: assistant }, { role: 'user', content: user }];

describe('continuesHistory', () => {
  it('is true for the history plus one new user message, the answer re-sent as it was streamed', () => {
    expect(continuesHistory(history, next('Hello Ada!\n\nHow can I help?'))).toBe(true);
  });

  it('ignores representation only: string versus text blocks, the answer re-joined or trimmed, thinking blocks, cache marks', () => {
    expect(continuesHistory(history, next(' Hello Ada!\n\nHow can I help? '))).toBe(true);
    expect(
      continuesHistory(
        history,
        next([
          { type: 'thinking', thinking: 'a name', signature: 's' },
          { type: 'text', text: 'Hello Ada!\n\n' },
          { type: 'text', text: 'How can I help?', cache_control: { type: 'ephemeral' } },
        ]),
      ),
    ).toBe(true);
    const blocks: NativeMessageParam[] = [
      { role: 'user', content: [{ type: 'text', text: 'My name is Ada.', cache_control: { type: 'ephemeral' } }] },
      ...next('Hello Ada!\n\nHow can I help?').slice(1),
    ];
    expect(continuesHistory(history, blocks)).toBe(true);
  });

  it('counts a whitespace edit as an edit: in a user message, and inside an answer', () => {
    const cmd = historyAfterTurn([{ role: 'user', content: 'run rm -rf /tmp/build' }], 'Done.');
    const again = (user: string, answer = 'Done.'): NativeMessageParam[] => [
      { role: 'user', content: user },
      { role: 'assistant', content: answer },
      { role: 'user', content: 'next' },
    ];
    expect(continuesHistory(cmd, again('run rm -rf /tmp/build'))).toBe(true);
    expect(continuesHistory(cmd, again('run rm -rf / tmp/build'))).toBe(false);
    expect(continuesHistory(cmd, again('run rm -rf /tmp/build '))).toBe(false);
    const code = historyAfterTurn([{ role: 'user', content: 'fix' }], 'if x:\n    y()\nz()');
    expect(
      continuesHistory(code, [
        { role: 'user', content: 'fix' },
        { role: 'assistant', content: 'if x:\n    y()\nz()' },
        { role: 'user', content: 'ok' },
      ]),
    ).toBe(true);
    expect(
      continuesHistory(code, [
        { role: 'user', content: 'fix' },
        { role: 'assistant', content: 'if x:\n    y()\n    z()' },
        { role: 'user', content: 'ok' },
      ]),
    ).toBe(false);
    expect(continuesHistory(history, next('Hello Ada! How can I help?'))).toBe(false);
  });

  it('records an answer with its tool calls from the streamed events; the input compares with keys in any order', () => {
    const rec = new AnswerRecorder();
    rec.add({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    rec.add({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Let me look.' } });
    rec.add({
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 't1', name: 'get', input: {} },
    });
    rec.add({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: '{"city":"Pa' },
    });
    rec.add({
      type: 'content_block_delta',
      index: 1,
      delta: { type: 'input_json_delta', partial_json: 'ris","days":2}' },
    });
    const asked: NativeMessageParam[] = [{ role: 'user', content: 'weather?' }];
    const h = historyAfterTurn(asked, rec.record());
    const results = (input: unknown, id = 't1'): NativeMessageParam[] => [
      ...asked,
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id, name: 'get', input },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'sunny' }] },
    ];
    expect(continuesHistory(h, results({ days: 2, city: 'Paris' }))).toBe(true);
    expect(continuesHistory(h, results({ city: 'Paris', days: 3 }))).toBe(false);
    expect(continuesHistory(h, results({ city: 'Paris', days: 2 }, 't2'))).toBe(false);
  });

  it('is false for an edited answer or question, another role order, a shortened or longer history, a prefill', () => {
    expect(continuesHistory(history, next('Hello Grace!\n\nHow can I help?'))).toBe(false);
    expect(
      continuesHistory(history, [
        { role: 'user', content: 'My name is Grace.' },
        ...next('Hello Ada!\n\nHow can I help?').slice(1),
      ]),
    ).toBe(false);
    expect(continuesHistory(history, first)).toBe(false);
    expect(
      continuesHistory(history, [
        ...next('Hello Ada!\n\nHow can I help?'),
        { role: 'assistant', content: 'x' },
        { role: 'user', content: 'y' },
      ]),
    ).toBe(false);
    expect(
      continuesHistory(history, [
        ...first,
        { role: 'assistant', content: 'Hello Ada!\n\nHow can I help?' },
        { role: 'assistant', content: 'Sure' },
      ]),
    ).toBe(false);
    expect(continuesHistory([], first)).toBe(false);
  });

  it('counts tool calls and results with their ids and contents', () => {
    const withTool = historyAfterTurn(
      [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny' }] }],
      'It is sunny.',
    );
    const again = (content: string): NativeMessageParam[] => [
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content }] },
      { role: 'assistant', content: 'It is sunny.' },
      { role: 'user', content: 'thanks' },
    ];
    expect(continuesHistory(withTool, again('sunny'))).toBe(true);
    expect(continuesHistory(withTool, again('rainy'))).toBe(false);
  });
});
