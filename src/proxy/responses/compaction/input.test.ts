import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../../errors.js';
import { readCompactionInput } from './input.js';
import { compactionSeal } from './seal.js';
import { summaryInstruction, summaryRequest } from './summary-request.js';

const seal = compactionSeal(randomBytes(32));
const sealed = seal.seal({ summary: 'We fixed the parser.', model: 'm', created: 0 });
const user = (text: string) => ({ role: 'user', content: text });

function refusal(fn: () => unknown): ProxyError {
  try {
    fn();
  } catch (err) {
    return err as ProxyError;
  }
  throw new Error('no refusal');
}

describe('reading a request’s compaction items', () => {
  it('opens a compaction item into the summary, where it stands, and lists the user messages', () => {
    const read = readCompactionInput(
      { model: 'm', input: [user('first'), { type: 'compaction', encrypted_content: sealed }, user('next')] },
      seal,
    );
    expect(read.trigger).toBe(false);
    const input = (read.body as { input: Array<{ content: unknown }> }).input;
    expect(JSON.stringify(input[1])).toContain('We fixed the parser.');
    expect(read.userMessages).toEqual([user('first'), user('next')]);
  });

  it('takes a compaction_trigger off the end, and refuses one that is not last', () => {
    const read = readCompactionInput({ model: 'm', input: [user('a'), { type: 'compaction_trigger' }] }, seal);
    expect(read.trigger).toBe(true);
    expect((read.body as { input: unknown[] }).input).toEqual([user('a')]);
    const err = refusal(() =>
      readCompactionInput({ model: 'm', input: [{ type: 'compaction_trigger' }, user('a')] }, seal),
    );
    expect(err.field).toBe('input.0');
  });

  it('refuses an item it cannot open, naming the field and the way out', () => {
    const err = refusal(() =>
      readCompactionInput({ model: 'm', input: [user('a'), { type: 'compaction', encrypted_content: 'x' }] }, seal),
    );
    expect(err.kind).toBe('invalid_request');
    expect(err.field).toBe('input.1.encrypted_content');
    expect(err.message).toMatch(/start a new session/);
    const empty = refusal(() => readCompactionInput({ model: 'm', input: [{ type: 'compaction' }] }, seal));
    expect(empty.field).toBe('input.0.encrypted_content');
  });

  it('reads context_management’s threshold and leaves the field for the parse to name as not honoured', () => {
    const read = readCompactionInput(
      { model: 'm', input: 'hi', context_management: [{ type: 'compaction', compact_threshold: 150_000 }] },
      seal,
    );
    expect(read.threshold).toBe(150_000);
    expect(read.body).toHaveProperty('context_management');
    const err = refusal(() =>
      readCompactionInput({ model: 'm', input: 'hi', context_management: [{ type: 'x' }] }, seal),
    );
    expect(err.field).toBe('context_management.0.type');
  });
});

describe('the summary request', () => {
  const request = {
    model: 'm',
    max_tokens: 100,
    tools: [{ name: 'read', input_schema: { type: 'object' as const } }],
    tool_choice: { type: 'any' as const },
    messages: [
      { role: 'user' as const, content: 'read it' },
      { role: 'assistant' as const, content: [{ type: 'tool_use' as const, id: 't1', name: 'read', input: {} }] },
      { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: 't1', content: 'data' }] },
    ],
  };

  it('asks in the last user turn, keeping the prefix, and never forces a tool call', () => {
    const keep = summaryRequest(request, true);
    expect(keep.messages.slice(0, 2)).toEqual(request.messages.slice(0, 2));
    expect(keep.messages.at(-1)?.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: 'data' },
      { type: 'text', text: summaryInstruction },
    ]);
    expect(keep.tools).toBe(request.tools);
    expect(keep.tool_choice).toEqual({ type: 'auto' });
    // The client's request is not changed in place.
    expect(request.messages).toHaveLength(3);
    expect(request.tool_choice).toEqual({ type: 'any' });
  });

  it('offers no tools when the mode cannot keep the model from calling one', () => {
    expect(summaryRequest(request, false).tool_choice).toEqual({ type: 'none' });
  });
});
