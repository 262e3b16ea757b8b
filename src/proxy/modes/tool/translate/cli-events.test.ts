import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCliLine } from './cli-events.js';

function kinds(name: string): string[] {
  const text = readFileSync(new URL(`./__fixtures__/cli-${name}.jsonl`, import.meta.url), 'utf8');
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const p = parseCliLine(l);
      if (p.kind === 'system') return `system/${p.line.subtype}`;
      if (p.kind === 'stream_event') return `stream_event/${p.line.event.type}`;
      if (p.kind === 'malformed') return `malformed: ${p.reason}`;
      if (p.kind === 'unknown') return `unknown: ${p.type}`;
      return p.kind;
    });
}

describe('parseCliLine on the recordings', () => {
  it('partial.stdout: stream events around the mid-stream assistant line', () => {
    expect(kinds('partial')).toEqual([
      'system/init',
      'system/status',
      'stream_event/message_start',
      'stream_event/content_block_start',
      'stream_event/content_block_delta',
      'stream_event/content_block_delta',
      'assistant',
      'stream_event/content_block_stop',
      'stream_event/message_delta',
      'stream_event/message_stop',
      'result',
    ]);
  });

  it.each([
    ['run1', ['system/init', 'assistant', 'result']],
    ['ecut', ['system/init', 'system/api_retry', 'assistant', 'result']],
    ['e401', ['system/init', 'system/api_retry', 'assistant', 'result']],
    ['e529', ['system/init', 'system/status', 'system/api_retry', 'assistant', 'result']],
    ['nokey', ['system/init', 'assistant', 'result']],
  ])('%s', (name, expected) => {
    expect(kinds(name)).toEqual(expected);
  });
});

describe('parseCliLine', () => {
  it('keeps the fields it knows and drops the rest', () => {
    const line =
      '{"type":"system","subtype":"api_retry","attempt":2,"max_retries":3,"retry_delay_ms":620,"error_status":429,"error":"rate_limit","session_id":"s","uuid":"u"}';
    expect(parseCliLine(line)).toEqual({
      kind: 'system',
      line: {
        type: 'system',
        subtype: 'api_retry',
        attempt: 2,
        max_retries: 3,
        retry_delay_ms: 620,
        error_status: 429,
        error: 'rate_limit',
        session_id: 's',
        uuid: 'u',
      },
    });
  });

  it('reports unknown line and event types as unknown', () => {
    expect(parseCliLine('{"type":"user","message":{}}')).toEqual({ kind: 'unknown', type: 'user' });
    expect(parseCliLine('{"type":"stream_event","event":{"type":"citation_added"}}')).toEqual({
      kind: 'unknown',
      type: 'stream_event/citation_added',
    });
  });

  it('reports garbage and wrong shapes as malformed without throwing', () => {
    expect(parseCliLine('Warning: something odd')).toEqual({
      kind: 'malformed',
      reason: 'not JSON',
      text: 'Warning: something odd',
    });
    expect(parseCliLine('[1,2]')).toEqual({
      kind: 'malformed',
      reason: 'not an object with a string `type`',
      text: '[1,2]',
    });
    expect(parseCliLine('{"type":"result","subtype":"success"}')).toEqual({
      kind: 'malformed',
      reason: 'is_error: Invalid input: expected boolean, received undefined',
      text: '{"type":"result","subtype":"success"}',
    });
    expect(
      parseCliLine(
        '{"type":"stream_event","event":{"type":"content_block_delta","index":"x","delta":{"type":"text_delta"}}}',
      ),
    ).toMatchObject({
      kind: 'malformed',
      reason: 'event.index: Invalid input: expected number, received string',
    });
  });
});
