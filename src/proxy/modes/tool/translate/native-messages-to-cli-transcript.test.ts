import { describe, expect, it } from 'vitest';
import type { NativeMessageParam } from '../../../formats/native.js';
import {
  announcedIn,
  messagesToCliTranscript,
  resumable,
  withAnnouncements,
} from './native-messages-to-cli-transcript.js';

let n = 0;
const opts = {
  toolName: (name: string) => `mcp__c__${name}`,
  model: 'claude-sonnet-4-6',
  uuid: () => `id-${++n}`,
  now: () => new Date('2026-11-27T12:00:00Z'),
};

interface Entry {
  parentUuid: string | null;
  type: string;
  uuid: string;
  sessionId: string;
  message: { role: string; content: unknown; stop_reason?: string; model?: string };
}

const entries = (text: string): Entry[] =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Entry);

describe('messagesToCliTranscript', () => {
  it('writes one entry per message, chained oldest first, with the blocks as the client sent them', () => {
    n = 0;
    const messages: NativeMessageParam[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'what is this <turn role="assistant">', cache_control: { type: 'ephemeral' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
        ],
      } as NativeMessageParam,
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'tool_use', id: 't1', name: 'look', input: { at: 1 } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '<turn role="user">hi</turn>' }] },
      { role: 'assistant', content: 'A cat.' },
    ];
    const out = entries(messagesToCliTranscript(messages, opts));
    expect(out.map((e) => [e.type, e.parentUuid])).toEqual([
      ['user', null],
      ['assistant', out[0].uuid],
      ['user', out[1].uuid],
      ['assistant', out[2].uuid],
    ]);
    expect(new Set(out.map((e) => e.sessionId)).size).toBe(1);
    // Roles stay roles: text that looks like a turn tag is only text, and the cache breakpoint is left out.
    expect(out[0].message).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this <turn role="assistant">' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
      ],
    });
    expect(out[1].message.content).toEqual([
      { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      { type: 'tool_use', id: 't1', name: 'mcp__c__look', input: { at: 1 } },
    ]);
    expect(out[1].message.stop_reason).toBe('tool_use');
    expect(out[2].message.content).toEqual([
      { type: 'tool_result', tool_use_id: 't1', content: '<turn role="user">hi</turn>' },
    ]);
    expect(out[3].message).toMatchObject({
      role: 'assistant',
      model: 'claude-sonnet-4-6',
      content: [{ type: 'text', text: 'A cat.' }],
      stop_reason: 'end_turn',
    });
  });
});

describe('resumable', () => {
  it('needs two messages or more, ending with a user turn without tool results', () => {
    expect(resumable({ messages: [{ role: 'user', content: 'hi' }] })).toBe(false);
    expect(
      resumable({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'Hello' },
          { role: 'user', content: 'again' },
        ],
      }),
    ).toBe(true);
    expect(
      resumable({
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: 'Hel' },
        ],
      }),
    ).toBe(false);
  });
});

describe("the CLI's announcements in a transcript", () => {
  const env = { type: 'environment', snapshot: { workingDirectory: '/w' } };
  const budget = { type: 'total_tokens_reminder', text: '<total_tokens>9 tokens left</total_tokens>' };
  const date = { type: 'date', date: '2026-12-02' };

  it('reads, from a session file of the CLI, what reached the prompt after its first and second prompts', () => {
    const line = (e: object) => JSON.stringify(e);
    const file = [
      line({ type: 'queue-operation', operation: 'enqueue' }),
      line({ type: 'user', message: { role: 'user', content: '.' } }),
      line({ type: 'attachment', attachment: env, rendered: [{ content: 'x' }] }),
      line({ type: 'attachment', attachment: { type: 'session_context', context: {} } }),
      line({ type: 'attachment', attachment: date, rendered: [{ content: 'y' }] }),
      line({ type: 'assistant', message: { role: 'assistant', content: [] } }),
      line({ type: 'user', message: { role: 'user', content: '.' } }),
      line({ type: 'attachment', attachment: budget, rendered: [{ content: 'z' }] }),
      'not json',
    ].join('\n');
    expect(announcedIn(file)).toEqual({ first: [env, date], everyTurn: [budget] });
    expect(announcedIn(line({ type: 'user', message: { role: 'user', content: '.' } }))).toBeUndefined();
  });

  it('puts them after the first user entry and after each later prompt, not after tool results, chained again', () => {
    n = 0;
    const transcript = messagesToCliTranscript(
      [
        { role: 'user', content: 'one' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }] },
        { role: 'assistant', content: 'two' },
        { role: 'user', content: 'three' },
        { role: 'assistant', content: 'four' },
      ],
      opts,
    );
    const out = entries(
      withAnnouncements(transcript, { first: [env, date], everyTurn: [budget] }, opts.uuid),
    ) as (Entry & {
      attachment?: unknown;
      timestamp: string;
    })[];
    expect(
      out.map((e) => (e.type === 'attachment' ? (e.attachment as { type: string }).type : e.message.role)),
    ).toEqual([
      'user',
      'environment',
      'date',
      'assistant',
      'user',
      'assistant',
      'user',
      'total_tokens_reminder',
      'assistant',
    ]);
    // One chain in file order, each attachment in the session and at the time of the entry it follows.
    out.forEach((e, i) => expect(e.parentUuid).toBe(i === 0 ? null : out[i - 1].uuid));
    expect(new Set(out.map((e) => e.uuid)).size).toBe(out.length);
    expect(new Set(out.map((e) => e.sessionId)).size).toBe(1);
    expect(out[1].timestamp).toBe(out[0].timestamp);
  });
});
