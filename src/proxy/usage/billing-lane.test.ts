// Which lane paid, and the two billing refusals, from what the provider and the real CLI actually print.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCliLine } from '../modes/tool/translate/cli-events.js';
import { createCliTranslateState, stepCliLine } from '../modes/tool/translate/cli-events-to-native-events.js';
import { mapCliError } from '../modes/tool/translate/map-cli-error.js';
import { fromErrorAnswer } from '../upstream/upstream-error.js';
import { billingRefusalOf, laneOfCliRateLimit, laneOfProviderAnswer } from './billing-lane.js';

const fixture = (name: string) =>
  readFileSync(new URL(name, import.meta.url), 'utf8')
    .trim()
    .split('\n');
const p = 'anthropic-ratelimit-unified';

describe('laneOfProviderAnswer', () => {
  it('is the client key for a request the client key carried, whatever the headers say', () => {
    expect(laneOfProviderAnswer({ [`${p}-overage-in-use`]: 'true' }, 'api-key')).toBe('api_key');
    expect(laneOfProviderAnswer({}, 'api-key')).toBe('api_key');
  });

  it('is extra usage when the provider says overage is in use or is the binding claim', () => {
    expect(laneOfProviderAnswer({ [`${p}-status`]: 'allowed', [`${p}-overage-in-use`]: 'true' }, 'oauth')).toBe(
      'extra_usage',
    );
    expect(laneOfProviderAnswer({ [`${p}-representative-claim`]: 'overage' }, 'oauth')).toBe('extra_usage');
    expect(laneOfProviderAnswer({ [`${p}-overage-in-use`]: ['TRUE'] }, 'oauth')).toBe('extra_usage');
  });

  it('is the plan when the unified headers are there without overage, and unknown without them', () => {
    expect(laneOfProviderAnswer({ [`${p}-status`]: 'allowed', [`${p}-overage-in-use`]: 'false' }, 'oauth')).toBe(
      'plan',
    );
    expect(laneOfProviderAnswer({ [`${p}-representative-claim`]: 'five_hour' }, 'oauth')).toBe('plan');
    expect(laneOfProviderAnswer({ 'content-type': 'application/json' }, 'oauth')).toBeNull();
    expect(laneOfProviderAnswer({ [`${p}-5h-utilization`]: '0.2' }, 'oauth')).toBeNull();
  });
});

describe('laneOfCliRateLimit', () => {
  it('reads extra usage from the line the real CLI printed for an answer billed to overage', () => {
    const [line] = fixture('./__fixtures__/cli-rate-limit-overage.jsonl');
    const info = (JSON.parse(line) as { rate_limit_info: Record<string, unknown> }).rate_limit_info;
    // What the real CLI 2.1.330 says: in use, although its own isUsingOverage stays false.
    expect(info).toMatchObject({ rateLimitType: 'overage', overageInUse: true, isUsingOverage: false });
    expect(laneOfCliRateLimit(info)).toBe('extra_usage');
  });

  it('reads the plan from an event without overage, and nothing from anything else', () => {
    expect(laneOfCliRateLimit({ status: 'allowed', rateLimitType: 'five_hour', isUsingOverage: false })).toBe('plan');
    expect(laneOfCliRateLimit({ isUsingOverage: true })).toBe('extra_usage');
    expect(laneOfCliRateLimit({})).toBeNull();
    expect(laneOfCliRateLimit('allowed')).toBeNull();
  });
});

describe('the two billing refusals', () => {
  it('are known by the provider words, and nothing else is', () => {
    expect(billingRefusalOf('Third-party apps now draw from your extra usage, not your plan limits.')).toBe(
      'extra_usage_off',
    );
    expect(
      billingRefusalOf(
        'This credential is only authorized for use with Claude Code and cannot be used for other API requests.',
      ),
    ).toBe('cli_only_credential');
    expect(billingRefusalOf('max_tokens: Field required')).toBeNull();
    expect(billingRefusalOf('custom words', { thirdParty: ['custom words'], cliOnly: [] })).toBe('extra_usage_off');
  });

  it('in direct mode: the provider 400 keeps its status and says what happened and what to do', () => {
    const body = JSON.stringify({
      type: 'error',
      error: {
        type: 'invalid_request_error',
        message: 'Third-party apps now draw from your extra usage, not your plan limits.',
      },
    });
    const err = fromErrorAnswer(400, {}, body);
    expect(err.status).toBe(400);
    expect(err.refusal).toBe('extra_usage_off');
    expect(err.message).toMatch(/^The provider billed or refused this as third-party use/);
    expect(err.message).toContain('extra usage is off');
    expect(err.message).toContain('docs/usage.md');
    expect(err.message).toContain(
      'The provider said: The provider answered 400 invalid_request_error: Third-party apps',
    );
    const other = fromErrorAnswer(
      400,
      {},
      JSON.stringify({ type: 'error', error: { type: 'invalid_request_error', message: 'bad' } }),
    );
    expect(other.refusal).toBeUndefined();
  });

  it('in tool mode: the real CLI reports the 400 as its synthetic assistant line and an error result, mapped the same way', () => {
    // Recorded from the real CLI 2.1.330 against the simulator refusing with the provider's words (exit code 1).
    const lines = fixture('../modes/tool/translate/__fixtures__/cli-refusal-extra-usage-off.jsonl');
    const state = createCliTranslateState({ notLoggedInPattern: 'Not logged in', loginHint: 'log in' });
    let error: unknown;
    for (const line of lines) {
      const step = stepCliLine(parseCliLine(line), state);
      error ??= step.error;
    }
    expect(error).toMatchObject({ status: 400, kind: 'invalid_request', refusal: 'extra_usage_off' });
    expect((error as Error).message).toContain(
      'The provider said: API Error: 400 Third-party apps now draw from your extra usage',
    );
    const cliOnly = mapCliError(
      {
        status: 400,
        text: 'API Error: 400 This credential is only authorized for use with Claude Code and cannot be used for other API requests.',
      },
      { notLoggedInPattern: 'x', loginHint: 'y' },
    );
    expect(cliOnly).toMatchObject({ status: 400, refusal: 'cli_only_credential' });
    expect(cliOnly.message).toMatch(
      /^This login only works through the CLI: .*Use tool mode \(\/v1, \/compat\/v1\), or your own API key in direct mode/,
    );
  });
});
