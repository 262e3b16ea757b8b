// The one observer of a chat: the same facts from a native event stream, a forwarded copy of its bytes, a whole
// JSON message and a response-API stream; and it never changes what it sees.

import { describe, expect, it } from 'vitest';
import type { ProxyState } from '../http/state.js';
import { ChatObserver } from './chat-observer.js';

const start = {
  type: 'message_start',
  message: {
    model: 'claude-sonnet-4-20250514',
    usage: { input_tokens: 11, output_tokens: 1, cache_read_input_tokens: 5, cache_creation_input_tokens: 2 },
  },
};
const delta = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: '☕' } };
const end = { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 7 } };
const stop = { type: 'message_stop' };
const facts = {
  usage: { inputTokens: 11, outputTokens: 7, cacheReadTokens: 5, cacheWriteTokens: 2 },
  modelServed: 'assistant-sonnet-4-20250514',
};
const servedName = (m: string) => m.replace(/^claude-/, 'assistant-');

function observer(clock: { t: number }) {
  const state = {} as ProxyState;
  return { state, observer: new ChatObserver(state, { now: () => clock.t, servedName }) };
}

describe('ChatObserver', () => {
  it('marks the first token at the first content delta, never at message_start, and keeps usage with cache tokens', () => {
    const clock = { t: 100 };
    const { state, observer: o } = observer(clock);
    const events = [start, delta, end, stop].map((e) => structuredClone(e));
    const before = JSON.stringify(events);
    o.native(events[0]);
    clock.t = 400;
    for (const e of events.slice(1)) o.native(e);
    expect(state).toMatchObject({ ...facts, firstTokenAt: 400 });
    expect(o.stopped).toBe(true);
    expect(JSON.stringify(events)).toBe(before); // it only reads
  });

  it('reads the same facts from a copy of the forwarded bytes, split at awkward places', () => {
    const sse = [start, delta, end, stop].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('');
    const bytes = Buffer.from(sse, 'utf8');
    const clock = { t: 100 };
    const { state, observer: o } = observer(clock);
    o.readBytesOf('text/event-stream; charset=utf-8');
    const firstDeltaAt = bytes.indexOf('event: content_block_delta');
    for (let i = 0; i < bytes.length; i += 13) {
      if (i > firstDeltaAt) clock.t = 400; // the delta's bytes arrive later than message_start's
      o.bytes(bytes.subarray(i, i + 13));
    }
    o.end();
    expect(state).toMatchObject({ ...facts, firstTokenAt: 400 });
    expect(o.stopped).toBe(true);
  });

  it('reads a JSON message whole, and nothing from an error body', () => {
    const { state, observer: o } = observer({ t: 50 });
    o.readBytesOf('application/json');
    o.bytes(
      Buffer.from('{"type":"message","model":"claude-sonnet-4-20250514","content":[{"type":"text","text":"hi"}],'),
    );
    o.bytes(
      Buffer.from(
        '"usage":{"input_tokens":11,"output_tokens":7,"cache_read_input_tokens":5,"cache_creation_input_tokens":2}}',
      ),
    );
    o.end();
    expect(state).toMatchObject({ ...facts, firstTokenAt: 50 });
    const err = observer({ t: 50 });
    err.observer.readBytesOf('application/json');
    err.observer.bytes(Buffer.from('{"type":"error","error":{"type":"overloaded_error"}}'));
    err.observer.end();
    expect(err.state).toEqual({});
  });

  it('reads response-API events: first delta, final usage with its cached tokens, served model', () => {
    const clock = { t: 10 };
    const { state, observer: o } = observer(clock);
    o.respapi('response.created', { response: { model: 'up-1' } });
    clock.t = 310;
    o.respapi('response.output_text.delta', { delta: 'hi' });
    clock.t = 500;
    o.respapi('response.output_text.delta', { delta: ' there' });
    o.respapi('response.completed', {
      response: {
        model: 'claude-x',
        usage: { input_tokens: 9, output_tokens: 2, input_tokens_details: { cached_tokens: 4 } },
      },
    });
    expect(state).toMatchObject({
      firstTokenAt: 310,
      modelServed: 'assistant-x',
      usage: { inputTokens: 9, outputTokens: 2, cacheReadTokens: 4 },
    });
    expect(o.stopped).toBe(true);
  });
});

describe('ChatObserver token figures', () => {
  it("never keeps message_start's output placeholder: an answer that ends before message_delta has no output count and is partial", () => {
    const clock = { t: 100 };
    const { state, observer: o } = observer(clock);
    o.native(structuredClone(start));
    o.native(structuredClone(delta));
    expect(state.usage).toEqual({ inputTokens: 11, outputTokens: undefined, cacheReadTokens: 5, cacheWriteTokens: 2 });
    expect(state.usagePartial).toBe(true);
    o.native(structuredClone(end));
    expect(state.usage?.outputTokens).toBe(7);
    expect(state.usagePartial).toBe(false);
  });

  it('reads the lane from the provider headers and the CLI event, extra usage winning over the plan within one answer', () => {
    const { state, observer: o } = observer({ t: 0 });
    o.providerAnswer({ 'anthropic-ratelimit-unified-status': 'allowed' }, 'oauth');
    expect(state).toMatchObject({ billingLane: 'plan', upstreamAnswered: true });
    o.cliRateLimit({ status: 'allowed', isUsingOverage: true });
    o.cliRateLimit({ status: 'allowed', isUsingOverage: false });
    expect(state.billingLane).toBe('extra_usage');
  });

  it('carries a CLI process lane only when nothing was reported for the request, and says it was carried', () => {
    const { state, observer: o } = observer({ t: 0 });
    o.cliLaneCarried('extra_usage');
    expect(state).toMatchObject({ billingLane: 'extra_usage', billingLaneCarried: true });
    const reported = observer({ t: 0 });
    reported.observer.cliRateLimit({ status: 'allowed', overageStatus: 'rejected', isUsingOverage: false });
    reported.observer.cliLaneCarried('extra_usage');
    expect(reported.state).toMatchObject({ billingLane: 'plan', billingLaneCarried: false });
  });
});
