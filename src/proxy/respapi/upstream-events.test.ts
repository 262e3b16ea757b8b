// Reading the response API's stream events: the model shown and failures reported inside the stream.

import { describe, expect, it } from 'vitest';
import { failureError, parseEvent, rewriteModel } from './upstream-events.js';

describe('response-API stream events', () => {
  it('rewrites only the response model, leaving other data byte for byte', () => {
    const delta = '{"type":"response.output_text.delta","delta":"hi"}';
    expect(rewriteModel(delta, parseEvent('response.output_text.delta', delta), 'gpt-5', 'rm-4')).toBe(delta);
    const done =
      '{"type":"response.completed","response":{"model":"gpt-5","usage":{"input_tokens":3,"output_tokens":4}}}';
    const ev = parseEvent('response.completed', done);
    expect(JSON.parse(rewriteModel(done, ev, 'gpt-5', 'rm-4'))).toEqual({
      type: 'response.completed',
      response: { model: 'rm-4', usage: { input_tokens: 3, output_tokens: 4 } },
    });
    expect(parseEvent('x', 'not json')).toEqual({ type: 'x', json: undefined });
  });

  it('maps failures reported inside the stream', () => {
    const failed = parseEvent(
      undefined,
      '{"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"slow down"}}}',
    );
    expect(failureError(failed)).toMatchObject({ kind: 'rate_limit' });
    expect(failureError(parseEvent('error', '{"type":"error","code":"server_error","message":"boom"}'))).toMatchObject({
      kind: 'unavailable',
      status: 503,
    });
    expect(failureError(parseEvent('error', '{"type":"error"}'))).toMatchObject({ kind: 'upstream', status: 502 });
  });
});
