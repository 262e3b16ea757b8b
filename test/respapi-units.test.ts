// The pure pieces of response-API mode, with literal inputs and outputs: request building, the instruction
// combining rule, session ids and the registry's lifetime, upstream error and event mapping.

import { describe, expect, it } from 'vitest';
import { ProxyError } from '../src/proxy/errors.js';
import { createProfile, defaultProfile } from '../src/proxy/profile.js';
import { buildUpstreamRequest } from '../src/proxy/respapi/build-upstream-request.js';
import { combineInstructions, defaultInstructionsPath } from '../src/proxy/respapi/instructions.js';
import { generateSessionId, isValidSessionId } from '../src/proxy/respapi/session-id.js';
import { SessionRegistry } from '../src/proxy/respapi/session-registry.js';
import { failureError, parseEvent, rewriteModel, usageOf } from '../src/proxy/respapi/upstream-events.js';
import { respapiUpstreamError, retryAfterSeconds, upstreamMessage } from '../src/proxy/upstream/respapi-errors.js';

const ours = 'OUR PROMPT';
const build = (body: unknown) => buildUpstreamRequest(body, defaultProfile, ours);
const thrown = (fn: () => unknown): ProxyError => {
  try {
    fn();
  } catch (err) {
    return err as ProxyError;
  }
  throw new Error('did not throw');
};

describe('buildUpstreamRequest', () => {
  it('turns a SPEC §2.7 body into instructions and input items', () => {
    const plan = build({
      model: 'rm-3.5-turbo',
      messages: [
        { role: 'system', content: 'Sys one.' },
        { role: 'user', content: [{ type: 'text', text: 'Look:' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
        { role: 'developer', content: [{ type: 'text', text: 'Dev two.' }] },
        { role: 'assistant', content: 'Seen.' },
      ],
      temperature: 0.5,
      max_tokens: 10,
      stream: true,
    });
    expect(plan).toEqual({
      body: {
        model: 'gpt-5-codex-mini',
        instructions: 'OUR PROMPT\n\nSys one.\n\nDev two.',
        input: [
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Look:' }, { type: 'input_image', image_url: 'data:image/png;base64,AAAA' }] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Seen.' }] },
        ],
        store: false,
        stream: true,
      },
      ignored: ['temperature', 'max_tokens'],
      clientStream: true,
      model: 'rm-3.5-turbo',
      upstreamModel: 'gpt-5-codex-mini',
    });
  });

  it('forwards a response-API body, combining instructions and keeping the client store choice', () => {
    const plan = build({ model: 'rm-4', input: 'hi', instructions: '  Theirs.  ', store: true, max_output_tokens: 5, stream: false, tools: [] });
    expect(plan.body).toEqual({ model: 'gpt-5', input: 'hi', instructions: 'OUR PROMPT\n\nTheirs.', store: true, tools: [], stream: true });
    expect(plan.ignored).toEqual(['max_output_tokens']);
    expect(plan.clientStream).toBe(false);
  });

  it('forwards parameters the upstream accepts when a profile says so, under their upstream names', () => {
    const profile = createProfile({ respapi: { unsupportedParams: [] } });
    const plan = buildUpstreamRequest({ model: 'rm-4', messages: [{ role: 'user', content: 'x' }], temperature: 0.7, max_tokens: 9 }, profile, ours);
    expect(plan.body).toMatchObject({ temperature: 0.7, max_output_tokens: 9 });
    expect(plan.body).not.toHaveProperty('max_tokens');
    expect(plan.ignored).toEqual([]);
  });

  it('treats null options as unset', () => {
    const plan = build({ model: 'rm-4', messages: [{ role: 'user', content: 'x' }], temperature: null, max_tokens: null, stream: null });
    expect(plan.ignored).toEqual([]);
    expect(plan.clientStream).toBe(false);
  });

  it.each([
    [{ model: 'gpt-4', messages: [{ role: 'user', content: 'x' }] }, 404, 'model'],
    [{ model: 'rm-4', messages: [{ role: 'assistant', content: [{ type: 'image_url', image_url: 'http://x/y.png' }] }] }, 400, 'messages.0.content.0'],
    [{ model: 'rm-4', messages: [{ role: 'user', content: 'x' }, { role: 'system', content: [{ type: 'text', text: 't' }, { type: 'image_url', image_url: 'http://x/y.png' }] }] }, 400, 'messages.1.content.1'],
    [{ model: 'rm-4', messages: [{ role: 'user', content: 'x' }], temperature: 3 }, 400, 'temperature'],
    [{ model: 'rm-4', input: [] }, 400, 'input'],
  ])('refuses %j', (body, status, field) => {
    const err = thrown(() => build(body));
    expect(err).toBeInstanceOf(ProxyError);
    expect(err.status).toBe(status);
    expect(err.field).toBe(field);
  });
});

describe('instructions', () => {
  it('puts ours first, then each client part, separated by a blank line, skipping empty parts', () => {
    expect(combineInstructions('Ours.', 'Client.', undefined, '  ', 'System.')).toBe('Ours.\n\nClient.\n\nSystem.');
    expect(combineInstructions('', 'Only client.')).toBe('Only client.');
  });

  it('finds the bundled prompt from the package root', () => {
    expect(defaultInstructionsPath()).toMatch(/assets[/\\]respapi-instructions\.md$/);
  });
});

describe('session ids', () => {
  it('accepts safe tokens only', () => {
    for (const ok of ['a', 'abc-123', 'A.b_c:d', 'x'.repeat(128), generateSessionId()]) expect(isValidSessionId(ok)).toBe(true);
    for (const bad of ['', '-a', '.a', 'a b', 'a/b', 'a\r\nb', 'é', 'x'.repeat(129)]) expect(isValidSessionId(bad)).toBe(false);
  });
});

describe('SessionRegistry', () => {
  it('counts requests, expires idle sessions and lists the most recent first', () => {
    let now = 1_000_000;
    const reg = new SessionRegistry({ idleMs: 1000, now: () => now });
    reg.touch('a', 'path');
    now += 400;
    reg.touch('b', 'generated');
    now += 400;
    expect(reg.touch('a', 'path')).toMatchObject({ requests: 2, createdAt: 1_000_000, lastUsedAt: 1_000_800 });
    expect(reg.list().map((s) => s.id)).toEqual(['a', 'b']);
    now += 700; // b idle 1100 ms, a idle 700 ms
    expect(reg.snapshot()).toEqual({
      active: 1,
      created_total: 2,
      expired_total: 1,
      idle_lifetime_ms: 1000,
      sessions: [
        { id: 'a', origin: 'path', requests: 2, created: new Date(1_000_000).toISOString(), last_used: new Date(1_000_800).toISOString(), expires: new Date(1_001_800).toISOString() },
      ],
    });
    now += 1000;
    expect(reg.touch('a', 'path')).toMatchObject({ requests: 1, createdAt: now });
  });

  it('is bounded: the least recently used sessions go first', () => {
    const reg = new SessionRegistry({ idleMs: 60_000, maxSessions: 2 });
    reg.touch('a', 'path');
    reg.touch('b', 'path');
    reg.touch('a', 'path');
    reg.touch('c', 'path');
    expect(reg.list().map((s) => s.id)).toEqual(['c', 'a']);
    expect(reg.delete('a')).toBe(true);
    expect(reg.get('a')).toBeUndefined();
  });
});

describe('upstream errors and events', () => {
  it('maps upstream statuses faithfully', () => {
    const p = defaultProfile;
    expect(respapiUpstreamError(403, '{"error":{"message":"no plan"}}', undefined, p)).toMatchObject({ kind: 'permission', status: 403 });
    expect(respapiUpstreamError(429, '{}', '12', p)).toMatchObject({ kind: 'rate_limit', retryAfter: 12 });
    expect(respapiUpstreamError(502, 'bad', undefined, p)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(respapiUpstreamError(400, '{"detail":"Unsupported parameter: x"}', undefined, p).message).toBe('The response API rejected the request: Unsupported parameter: x');
    expect(respapiUpstreamError(404, '', undefined, p)).toMatchObject({ kind: 'not_found' });
  });

  it('reads messages and Retry-After values', () => {
    expect(upstreamMessage('{"error":{"message":"a\\n  b"}}')).toBe('a b');
    expect(upstreamMessage('{"error":"invalid_grant"}')).toBe('invalid_grant');
    expect(upstreamMessage('<html>')).toBe('<html>');
    expect(upstreamMessage('x'.repeat(400))).toHaveLength(301);
    expect(retryAfterSeconds('3')).toBe(3);
    expect(retryAfterSeconds(new Date(10_000).toUTCString(), 0)).toBe(10);
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });

  it('rewrites only the response model, leaving other data byte for byte', () => {
    const delta = '{"type":"response.output_text.delta","delta":"hi"}';
    expect(rewriteModel(delta, parseEvent('response.output_text.delta', delta), 'gpt-5', 'rm-4')).toBe(delta);
    const done = '{"type":"response.completed","response":{"model":"gpt-5","usage":{"input_tokens":3,"output_tokens":4}}}';
    const ev = parseEvent('response.completed', done);
    expect(JSON.parse(rewriteModel(done, ev, 'gpt-5', 'rm-4'))).toEqual({ type: 'response.completed', response: { model: 'rm-4', usage: { input_tokens: 3, output_tokens: 4 } } });
    expect(usageOf(ev.json!.response as never)).toEqual({ inputTokens: 3, outputTokens: 4 });
    expect(parseEvent('x', 'not json')).toEqual({ type: 'x', json: undefined });
  });

  it('maps failures reported inside the stream', () => {
    const failed = parseEvent(undefined, '{"type":"response.failed","response":{"error":{"code":"rate_limit_exceeded","message":"slow down"}}}');
    expect(failureError(failed)).toMatchObject({ kind: 'rate_limit' });
    expect(failureError(parseEvent('error', '{"type":"error","code":"server_error","message":"boom"}'))).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(failureError(parseEvent('error', '{"type":"error"}'))).toMatchObject({ kind: 'upstream', status: 502 });
  });
});
