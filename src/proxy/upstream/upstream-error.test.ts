// Upstream failures as ProxyErrors: provider error answers, transport errors and deadlines, Retry-After.

import { describe, expect, it } from 'vitest';
import { fromErrorAnswer, fromTransportError, parseRetryAfter, responseApi } from './upstream-error.js';

const timeouts = { upstreamConnectTimeoutMs: 1000, upstreamFirstByteTimeoutMs: 2000, upstreamIdleTimeoutMs: 3000 };

describe('provider error mapping', () => {
  it('keeps 429 with Retry-After and rate-limit headers; 529 and 5xx are 503', () => {
    const limited = fromErrorAnswer(
      429,
      { 'retry-after': '12', 'anthropic-ratelimit-requests-remaining': '0' },
      '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}',
    );
    expect(limited).toMatchObject({
      kind: 'rate_limit',
      status: 429,
      retryAfter: 12,
      headers: { 'anthropic-ratelimit-requests-remaining': '0' },
    });
    expect(limited.message).toContain('slow down');
    expect(fromErrorAnswer(529, {}, '{"error":{"type":"overloaded_error","message":"Overloaded"}}')).toMatchObject({
      kind: 'unavailable',
      status: 503,
    });
    expect(fromErrorAnswer(500, {}, 'oops')).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(fromErrorAnswer(400, {}, '{"error":{"message":"bad"}}')).toMatchObject({
      kind: 'invalid_request',
      status: 400,
    });
  });

  it('redacts secrets the provider echoes', () => {
    expect(
      fromErrorAnswer(401, {}, '{"error":{"message":"invalid key sk-ant-api03-secretvalue123"}}').message,
    ).not.toContain('secretvalue');
  });

  it('names the deadline setting for each timeout', () => {
    expect(fromTransportError({ code: 'UND_ERR_HEADERS_TIMEOUT' }, timeouts)).toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('UPSTREAM_FIRST_BYTE_TIMEOUT_MS'),
    });
    expect(fromTransportError({ code: 'UND_ERR_BODY_TIMEOUT' }, timeouts).message).toContain(
      '3000 ms (UPSTREAM_IDLE_TIMEOUT_MS)',
    );
    expect(fromTransportError({ code: 'UND_ERR_CONNECT_TIMEOUT' }, timeouts).message).toContain(
      'UPSTREAM_CONNECT_TIMEOUT_MS',
    );
    expect(fromTransportError({ code: 'ECONNREFUSED' }, timeouts)).toMatchObject({ kind: 'unavailable', status: 503 });
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('3')).toBe(3);
    expect(parseRetryAfter(new Date(10_000 + 5_000).toUTCString(), 10_000)).toBe(5);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

describe('one transport mapping for every upstream', () => {
  it('names the upstream that failed and the setting that points at it', () => {
    expect(fromTransportError({ code: 'ECONNREFUSED' }, timeouts, responseApi).message).toBe(
      'Cannot reach the response API (ECONNREFUSED); check the network and RESPAPI_BASE_URL',
    );
    expect(fromTransportError({ code: 'ECONNREFUSED' }, timeouts).message).toContain('ASSISTANT_API_BASE_URL');
    expect(fromTransportError({ code: 'UND_ERR_HEADERS_TIMEOUT' }, timeouts, responseApi).message).toMatch(
      /^The response API did not start answering within 2000 ms/,
    );
    expect(fromTransportError({ code: 'ECONNRESET' }, timeouts, responseApi)).toMatchObject({
      kind: 'upstream',
      status: 502,
      message: 'The connection to the response API failed (ECONNRESET)',
    });
  });
});
