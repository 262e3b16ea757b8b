// The one hop-by-hop list: every name on it, and every name the Connection header lists, is dropped from the
// client's request headers going upstream (here) and from the provider's answer headers coming back
// (test/direct-messages.test.ts "drops hop-by-hop headers of the provider's answer").

import { describe, expect, it } from 'vitest';
import { forwardableHeaders } from '../upstream/client-auth.js';
import { connectionNamed, hopByHopHeaders } from './hop-by-hop.js';

describe('connectionNamed', () => {
  it('names nothing for keep-alive or close, in any case, and lists the rest lower-cased', () => {
    expect(connectionNamed(undefined)).toBeUndefined();
    expect(connectionNamed('keep-alive')).toBeUndefined();
    expect(connectionNamed('Close')).toBeUndefined();
    expect(connectionNamed('close, X-Hop ,,x-other')).toEqual(new Set(['close', 'x-hop', 'x-other']));
    expect(connectionNamed(['keep-alive', 'X-Hop'])).toEqual(new Set(['keep-alive', 'x-hop']));
  });
});

describe('request headers going upstream', () => {
  it('carry no header of the list, nor one Connection names', () => {
    const everyHop = Object.fromEntries(hopByHopHeaders.map((name) => [name, 'x']));
    const out = forwardableHeaders({ ...everyHop, connection: 'close, X-Hop', 'x-hop': '1', 'x-kept': 'yes' });
    expect(out).toEqual({ 'x-kept': 'yes' });
  });
});
