// The pure pieces of direct mode, with literal inputs and outputs: who pays for a request (client-auth), which
// headers go upstream, the byte-exact model rewrite, provider error mapping, and usage read from a stream copy.

import { describe, expect, it } from 'vitest';
import { createProfile } from '../src/proxy/profile.js';
import { clientAuthOf, forwardableHeaders, mergeFlags, upstreamHeaders } from '../src/proxy/upstream/client-auth.js';
import { rewriteBodyModel, topLevelStringSpan } from '../src/proxy/upstream/rewrite-body-model.js';
import { fromErrorAnswer, fromTransportError, parseRetryAfter } from '../src/proxy/upstream/upstream-error.js';
import { UsageSniffer } from '../src/proxy/upstream/usage-sniffer.js';

const profile = createProfile();
const accessKey = 'proxy-access-key-0123456789';
const timeouts = { upstreamConnectTimeoutMs: 1000, upstreamFirstByteTimeoutMs: 2000, upstreamIdleTimeoutMs: 3000 };

describe('clientAuthOf', () => {
  it.each([
    [{ 'x-api-key': 'sk-ant-api03-abc' }, { kind: 'api-key', header: 'x-api-key', value: 'sk-ant-api03-abc' }],
    [{ authorization: 'Bearer sk-ant-api03-abc' }, { kind: 'api-key', header: 'authorization', value: 'Bearer sk-ant-api03-abc' }],
    [{ authorization: 'Bearer dummy', 'x-api-key': 'sk-ant-api03-abc' }, { kind: 'api-key', header: 'x-api-key', value: 'sk-ant-api03-abc' }],
    [{ authorization: 'Bearer sk-ant-oat01-mine' }, { kind: 'client-oauth', token: 'sk-ant-oat01-mine' }],
    [{ 'x-api-key': 'dummy' }, { kind: 'cli-oauth' }],
    [{ authorization: 'Bearer not-needed' }, { kind: 'cli-oauth' }],
    [{}, { kind: 'cli-oauth' }],
    [{ 'x-api-key': accessKey }, { kind: 'cli-oauth' }],
  ])('%j -> %j', (headers, expected) => {
    expect(clientAuthOf(headers, profile, accessKey)).toEqual(expected);
  });

  it('never forwards the proxy access key, even one that looks like a provider key', () => {
    const key = 'sk-ant-api03-used-as-access-key';
    expect(clientAuthOf({ 'x-api-key': key }, profile, key)).toEqual({ kind: 'cli-oauth' });
  });
});

describe('upstream headers', () => {
  it('drops hop-by-hop, credential and browser headers, including those named by Connection', () => {
    expect(
      forwardableHeaders({
        connection: 'close, x-hop',
        'x-hop': '1',
        host: 'localhost:8000',
        'content-length': '10',
        authorization: 'Bearer x',
        'x-api-key': 'x',
        'x-proxy-access-key': 'x',
        cookie: 'a=b',
        origin: 'http://localhost:3000',
        'sec-fetch-mode': 'cors',
        'accept-encoding': 'gzip',
        'content-type': 'application/json',
        'anthropic-beta': 'a,b',
        'x-stainless-lang': 'js',
      }),
    ).toEqual({ 'content-type': 'application/json', 'anthropic-beta': 'a,b', 'x-stainless-lang': 'js' });
  });

  it('merges feature flags without duplicates, the client first', () => {
    expect(mergeFlags('a, oauth-2025-04-20 ,b', ['oauth-2025-04-20', 'c'])).toBe('a,oauth-2025-04-20,b,c');
    expect(mergeFlags(undefined, ['oauth-2025-04-20'])).toBe('oauth-2025-04-20');
  });

  it('adds the OAuth credential and required headers, defaults the version, keeps a client version', () => {
    expect(upstreamHeaders({ 'anthropic-beta': 'x' }, { kind: 'cli-oauth' }, profile, 'sk-ant-oat01-t')).toEqual({
      'anthropic-beta': 'x,oauth-2025-04-20',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer sk-ant-oat01-t',
      'x-app': 'cli',
    });
    expect(upstreamHeaders({ 'anthropic-version': '2099-01-01' }, { kind: 'api-key', header: 'x-api-key', value: 'sk-ant-api03-k' }, profile)).toEqual({
      'anthropic-version': '2099-01-01',
      'x-api-key': 'sk-ant-api03-k',
    });
  });
});

describe('rewriteBodyModel', () => {
  const b = (s: string) => Buffer.from(s, 'utf8');

  it('replaces only the top-level model value, keeping every other byte', () => {
    const body = '{"messages":[{"role":"user","content":"model \\"assistant-x\\"","model":"assistant-y"}], "model" : "assistant-sonnet-4-20250514" ,"n":1.0}';
    expect(rewriteBodyModel(b(body), profile).toString()).toBe(body.replace('"assistant-sonnet-4-20250514"', '"claude-sonnet-4-20250514"'));
  });

  it('returns the same buffer when nothing needs mapping', () => {
    const raw = b('{"model":"claude-3-5-haiku-20241022","x":"é"}');
    expect(rewriteBodyModel(raw, profile)).toBe(raw);
    const noModel = b('{"messages":[]}');
    expect(rewriteBodyModel(noModel, profile)).toBe(noModel);
  });

  it('handles multi-byte text and escapes before the model', () => {
    const body = '{"system":"☕ \\\\ \\" {[","model":"assistant-opus-4-20250514"}';
    expect(rewriteBodyModel(b(body), profile).toString()).toBe('{"system":"☕ \\\\ \\" {[","model":"claude-opus-4-20250514"}');
    expect(topLevelStringSpan(b('{"model":{"model":"x"}}'), 'model')).toBeUndefined();
  });
});

describe('provider error mapping', () => {
  it('keeps 429 with Retry-After and rate-limit headers; 529 and 5xx are 503', () => {
    const limited = fromErrorAnswer(429, { 'retry-after': '12', 'anthropic-ratelimit-requests-remaining': '0' }, '{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}');
    expect(limited).toMatchObject({ kind: 'rate_limit', status: 429, retryAfter: 12, headers: { 'anthropic-ratelimit-requests-remaining': '0' } });
    expect(limited.message).toContain('slow down');
    expect(fromErrorAnswer(529, {}, '{"error":{"type":"overloaded_error","message":"Overloaded"}}')).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(fromErrorAnswer(500, {}, 'oops')).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(fromErrorAnswer(400, {}, '{"error":{"message":"bad"}}')).toMatchObject({ kind: 'invalid_request', status: 400 });
  });

  it('redacts secrets the provider echoes', () => {
    expect(fromErrorAnswer(401, {}, '{"error":{"message":"invalid key sk-ant-api03-secretvalue123"}}').message).not.toContain('secretvalue');
  });

  it('names the deadline setting for each timeout', () => {
    expect(fromTransportError({ code: 'UND_ERR_HEADERS_TIMEOUT' }, timeouts)).toMatchObject({ kind: 'timeout', message: expect.stringContaining('UPSTREAM_FIRST_BYTE_TIMEOUT_MS') });
    expect(fromTransportError({ code: 'UND_ERR_BODY_TIMEOUT' }, timeouts).message).toContain('3000 ms (UPSTREAM_IDLE_TIMEOUT_MS)');
    expect(fromTransportError({ code: 'UND_ERR_CONNECT_TIMEOUT' }, timeouts).message).toContain('UPSTREAM_CONNECT_TIMEOUT_MS');
    expect(fromTransportError({ code: 'ECONNREFUSED' }, timeouts)).toMatchObject({ kind: 'unavailable', status: 503 });
  });

  it('parses Retry-After seconds and dates', () => {
    expect(parseRetryAfter('3')).toBe(3);
    expect(parseRetryAfter(new Date(10_000 + 5_000).toUTCString(), 10_000)).toBe(5);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});

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
