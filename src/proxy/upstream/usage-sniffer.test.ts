// Token usage read from a copy of the bytes the direct-mode forwarder passes through.

import { describe, expect, it } from 'vitest';
import { UsageSniffer } from './usage-sniffer.js';

describe('UsageSniffer', () => {
  it('reads usage from an SSE copy split at awkward places', () => {
    const sse =
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":11,"output_tokens":1}}}\n\n' +
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"☕"}}\n\n' +
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7}}\n\n';
    const bytes = Buffer.from(sse, 'utf8');
    const sniffer = new UsageSniffer('text/event-stream; charset=utf-8');
    for (let i = 0; i < bytes.length; i += 13) sniffer.feed(bytes.subarray(i, i + 13));
    expect(sniffer.end()).toEqual({ inputTokens: 11, outputTokens: 7 });
  });

  it('reads usage from a JSON answer, and nothing from an error body', () => {
    const ok = new UsageSniffer('application/json');
    ok.feed(Buffer.from('{"type":"message","usage":{"input_tokens":3,'));
    ok.feed(Buffer.from('"output_tokens":4}}'));
    expect(ok.end()).toEqual({ inputTokens: 3, outputTokens: 4 });
    const err = new UsageSniffer('application/json');
    err.feed(Buffer.from('{"type":"error"}'));
    expect(err.end()).toEqual({});
  });
});
