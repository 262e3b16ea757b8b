// The one upstream SSE reader: events come out whole whatever the bytes' split, including a multi-byte character
// and a CRLF line end cut between two reads.
import { describe, expect, it } from 'vitest';
import { SseReader, readSse } from './sse-reader.js';

const text = 'event: message_start\r\ndata: {"t":"☕ é"}\r\n\r\nevent: ping\r\ndata: {}\r\n\r\ndata: last';
const bytes = Buffer.from(text, 'utf8');
// The last event has no closing blank line: a stream cut mid-event does not dispatch it (the SSE rule).
const expected = [
  { event: 'message_start', data: '{"t":"☕ é"}' },
  { event: 'ping', data: '{}' },
];

describe('SseReader', () => {
  it('splits inside a multi-byte character and inside a CRLF without changing an event', () => {
    const coffee = bytes.indexOf(Buffer.from('☕', 'utf8'));
    const crlf = bytes.indexOf(Buffer.from('\r\n', 'utf8'));
    for (const cut of [coffee + 1, coffee + 2, crlf + 1]) {
      const reader = new SseReader();
      const got = [...reader.feed(bytes.subarray(0, cut)), ...reader.feed(bytes.subarray(cut)), ...reader.end()];
      expect(got).toEqual(expected);
    }
  });

  it('gives the same events when fed one byte at a time', () => {
    const reader = new SseReader();
    const got = [];
    for (let i = 0; i < bytes.length; i++) got.push(...reader.feed(bytes.subarray(i, i + 1)));
    got.push(...reader.end());
    expect(got).toEqual(expected);
  });

  it('ignores a byte-order mark at the start of the stream, even when split across reads, and nowhere else', () => {
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const reader = new SseReader();
    const got = [
      ...reader.feed(bom.subarray(0, 2)),
      ...reader.feed(Buffer.concat([bom.subarray(2), bytes])),
      ...reader.end(),
    ];
    expect(got).toEqual(expected);
    const later = new SseReader();
    expect(later.feed(Buffer.concat([Buffer.from('data: a\n\n'), bom, Buffer.from('data: b\n\n')]))).toEqual([
      { event: undefined, data: 'a' },
      // A mark inside the stream is part of the next line's field name, so that line is not a data line.
    ]);
  });

  it('turns an invalid UTF-8 sequence into U+FFFD, as the earlier decoder did', () => {
    const reader = new SseReader();
    expect(reader.feed(Buffer.concat([Buffer.from('data: a'), Buffer.from([0xff]), Buffer.from('b\n\n')]))).toEqual([
      { event: undefined, data: 'a\ufffdb' },
    ]);
  });

  it('returns an event as soon as its blank line arrives, not at the end', () => {
    const reader = new SseReader();
    expect(reader.feed(Buffer.from('data: a\n'))).toEqual([]);
    expect(reader.feed(Buffer.from('\n'))).toEqual([{ event: undefined, data: 'a' }]);
  });
});

describe('readSse', () => {
  it('reads an async body in odd pieces', async () => {
    async function* body() {
      for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
    }
    const got = [];
    for await (const msg of readSse(body())) got.push(msg);
    expect(got).toEqual(expected);
  });

  it('passes a failed read on to its caller', async () => {
    async function* body(): AsyncGenerator<Uint8Array> {
      yield Buffer.from('data: one\n\n');
      throw Object.assign(new Error('reset'), { code: 'ECONNRESET' });
    }
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const msg of readSse(body())) got.push(msg.data);
      })(),
    ).rejects.toMatchObject({ code: 'ECONNRESET' });
    expect(got).toEqual(['one']);
  });
});
