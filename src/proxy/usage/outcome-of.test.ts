import { describe, expect, it } from 'vitest';
import { outcomeOf, type EndFacts } from './outcome-of.js';

const base: EndFacts = { clientGone: false, status: 200, routed: true };

describe('outcomeOf', () => {
  it.each<[Partial<EndFacts>, string]>([
    [{}, 'ok'],
    [{ clientGone: true }, 'client_gone'],
    [{ clientGone: true, status: 500 }, 'client_gone'],
    [{ errorType: 'overloaded_error' }, 'upstream_error'], // a stream that broke after its 200
    [{ errorType: 'timeout_error' }, 'timeout'],
    [{ status: 400, errorType: 'invalid_request_error' }, 'rejected'],
    [{ status: 404, errorType: 'model_not_found' }, 'rejected'],
    [{ status: 400, upstreamAnswered: true }, 'upstream_error'],
    [{ status: 429, routed: false }, 'rejected'], // the proxy's own rate limit
    [{ status: 401, routed: false }, 'rejected'], // a refused access key
    [{ status: 429 }, 'upstream_error'],
    [{ status: 503 }, 'upstream_error'],
    [{ status: 500 }, 'error'],
    [{ status: 500, upstreamAnswered: true }, 'upstream_error'],
    [{ status: 504 }, 'timeout'],
    [{ status: 408, routed: true }, 'timeout'],
    [{ status: 200, explicit: 'upstream_error' }, 'upstream_error'],
  ])('%o -> %s', (facts, outcome) => {
    expect(outcomeOf({ ...base, ...facts })).toBe(outcome);
  });
});
