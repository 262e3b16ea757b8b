// Response-API error answers -> ProxyErrors, mapped faithfully (a 5xx is never a 429; Retry-After passes).

import { describe, expect, it } from 'vitest';
import { defaultProfile } from '../profile.js';
import { respapiUpstreamError, upstreamMessage } from './respapi-errors.js';

describe('response-API error answers', () => {
  it('maps upstream statuses faithfully', () => {
    const p = defaultProfile;
    expect(respapiUpstreamError(403, '{"error":{"message":"no plan"}}', undefined, p)).toMatchObject({
      kind: 'permission',
      status: 403,
    });
    expect(respapiUpstreamError(429, '{}', '12', p)).toMatchObject({ kind: 'rate_limit', retryAfter: 12 });
    expect(respapiUpstreamError(502, 'bad', undefined, p)).toMatchObject({ kind: 'unavailable', status: 503 });
    expect(respapiUpstreamError(400, '{"detail":"Unsupported parameter: x"}', undefined, p).message).toBe(
      'The response API rejected the request: Unsupported parameter: x',
    );
    expect(respapiUpstreamError(404, '', undefined, p)).toMatchObject({ kind: 'not_found' });
  });

  it('reads the human message of any error body', () => {
    expect(upstreamMessage('{"error":{"message":"a\\n  b"}}')).toBe('a b');
    expect(upstreamMessage('{"error":"invalid_grant"}')).toBe('invalid_grant');
    expect(upstreamMessage('<html>')).toBe('<html>');
    expect(upstreamMessage('x'.repeat(400))).toHaveLength(301);
  });
});
