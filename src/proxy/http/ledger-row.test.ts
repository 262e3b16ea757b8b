// The ledger's row of one finished request, from what the request left on ctx.state and how it ended.

import { describe, expect, it } from 'vitest';
import type { ProxyState } from './state.js';
import type { ProxyContext } from './types.js';
import { capturedBodiesOf, ledgerRowOf, type RequestEnd } from './ledger-row.js';

function ctxOf(state: Partial<ProxyState>, extra: Partial<ProxyContext> = {}): ProxyContext {
  return {
    method: 'POST',
    path: '/v1/messages',
    headers: { 'user-agent': 'curl/8.0' },
    get: (name: string) => (name === 'user-agent' ? 'curl/8.0' : ''),
    state: { requestId: 'r1', family: 'native', mode: 'tool', route: '/v1/messages', ...state },
    ...extra,
  } as unknown as ProxyContext;
}

const ended: RequestEnd = {
  startedAt: 1000,
  status: 200,
  durationMs: 42,
  clientGone: false,
  errorType: undefined,
  ttftMs: 7,
};

describe('ledgerRowOf', () => {
  it('records the facts the observer left, with the lane it read', () => {
    const row = ledgerRowOf(
      ctxOf({
        model: 'assistant-sonnet',
        modelServed: 'assistant-sonnet-4-6',
        stream: true,
        usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 3 },
        billingLane: 'plan',
        upstreamAnswered: true,
      }),
      ended,
    );
    expect(row).toMatchObject({
      requestId: 'r1',
      startedAt: 1000,
      mode: 'tool',
      route: '/v1/messages',
      method: 'POST',
      streamed: true,
      modelRequested: 'assistant-sonnet',
      modelServed: 'assistant-sonnet-4-6',
      status: 200,
      outcome: 'ok',
      errorType: null,
      tokens: { input: 10, output: 5, cacheRead: 3, cacheWrite: null },
      tokensPartial: false,
      billingLane: 'plan',
      laneCarried: false,
      ttftMs: 7,
      durationMs: 42,
    });
  });

  it('keeps no output count that was only a placeholder', () => {
    const row = ledgerRowOf(ctxOf({ usage: { inputTokens: 10, outputTokens: 1 }, usagePartial: true }), ended);
    expect(row.tokens.output).toBeNull();
    expect(row.tokensPartial).toBe(true);
  });

  it("names the lane from the provider's refusal, and the response API's for a respapi answer", () => {
    const refused = ledgerRowOf(ctxOf({ billingRefusal: 'extra_usage_off' }), { ...ended, status: 400 });
    expect(refused).toMatchObject({
      billingLane: 'extra_usage',
      refusal: 'extra_usage_off',
      outcome: 'upstream_error',
    });
    const respapi = ledgerRowOf(ctxOf({ mode: 'respapi', upstreamAnswered: true }), ended);
    expect(respapi.billingLane).toBe('response_api');
  });

  it('records an unrouted path as it came, cut short, with no mode', () => {
    const row = ledgerRowOf(ctxOf({ mode: 'none', route: '' }, { path: `/v1/${'x'.repeat(300)}` }), {
      ...ended,
      status: 429,
    });
    expect(row.mode).toBeNull();
    expect(row.route).toHaveLength(200);
  });
});

describe('capturedBodiesOf', () => {
  it('keeps a whole answer and leaves a stream out', () => {
    const whole = capturedBodiesOf(ctxOf({ body: { a: 1 } }, { body: Buffer.from('{}') }));
    expect(whole.request).toEqual({ a: 1 });
    expect(Buffer.isBuffer(whole.response)).toBe(true);
    const stream = capturedBodiesOf(ctxOf({}, { body: { pipe() {} } }));
    expect(stream.response).toBeUndefined();
  });
});
