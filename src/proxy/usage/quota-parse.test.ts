import { describe, expect, it } from 'vitest';
import {
  defaultQuotaNames,
  parseCliRateLimit,
  parseProviderQuotaHeaders,
  parseRespapiQuotaHeaders,
} from './quota-parse.js';

const T = 1_795_382_158_000;

describe('parseProviderQuotaHeaders', () => {
  it('reads the 5-hour and 7-day windows with utilization, reset and status', () => {
    const rows = parseProviderQuotaHeaders(
      {
        'anthropic-ratelimit-unified-status': 'allowed',
        'anthropic-ratelimit-unified-representative-claim': 'five_hour',
        'anthropic-ratelimit-unified-5h-utilization': '0.18',
        'anthropic-ratelimit-unified-5h-reset': '1795400158',
        'anthropic-ratelimit-unified-5h-status': 'allowed',
        'anthropic-ratelimit-unified-7d-utilization': '0.23',
        'anthropic-ratelimit-unified-7d-reset': '1795734958',
        'anthropic-ratelimit-unified-7d-status': 'allowed_warning',
        'content-type': 'application/json',
      },
      T,
    );
    expect(rows).toEqual([
      {
        source: 'direct',
        window: 'five_hour',
        utilization: 0.18,
        resetsAt: 1795400158,
        status: 'allowed',
        observedAt: T,
      },
      {
        source: 'direct',
        window: 'seven_day',
        utilization: 0.23,
        resetsAt: 1795734958,
        status: 'allowed_warning',
        observedAt: T,
      },
    ]);
  });

  it('keeps a window it does not know under its own name, and reads mixed-case names and array values', () => {
    const rows = parseProviderQuotaHeaders(
      {
        'Anthropic-Ratelimit-Unified-7d_opus-Utilization': ['0.5'],
        'anthropic-ratelimit-unified-30d-status': 'rejected',
      },
      T,
    );
    expect(rows).toEqual([
      { source: 'direct', window: '30d', utilization: null, resetsAt: null, status: 'rejected', observedAt: T },
      { source: 'direct', window: 'seven_day_opus', utilization: 0.5, resetsAt: null, status: null, observedAt: T },
    ]);
  });

  it('drops values that are not numbers or out of range, and a reset given in ms becomes seconds', () => {
    const rows = parseProviderQuotaHeaders(
      {
        'anthropic-ratelimit-unified-5h-utilization': 'lots',
        'anthropic-ratelimit-unified-5h-reset': '1795400158000',
        'anthropic-ratelimit-unified-7d-utilization': '-3',
        'anthropic-ratelimit-unified-7d-status': '<script>',
      },
      T,
    );
    expect(rows).toEqual([
      { source: 'direct', window: 'five_hour', utilization: null, resetsAt: 1795400158, status: null, observedAt: T },
    ]);
  });

  it('yields nothing for answers without quota headers, and follows an overridden prefix', () => {
    expect(parseProviderQuotaHeaders({ 'content-type': 'application/json', 'x-request-id': 'r' }, T)).toEqual([]);
    const names = { ...defaultQuotaNames, providerPrefix: 'acme-quota' };
    expect(parseProviderQuotaHeaders({ 'acme-quota-5h-utilization': '0.4' }, T, names)).toEqual([
      { source: 'direct', window: 'five_hour', utilization: 0.4, resetsAt: null, status: null, observedAt: T },
    ]);
  });
});

describe('parseRespapiQuotaHeaders', () => {
  it('names primary and secondary windows by their length and turns percent into a fraction', () => {
    const rows = parseRespapiQuotaHeaders(
      {
        'x-codex-primary-used-percent': '12.5',
        'x-codex-primary-window-minutes': '300',
        'x-codex-primary-reset-at': '1704069000',
        'x-codex-secondary-used-percent': '80',
        'x-codex-secondary-window-minutes': '10080',
        'x-codex-secondary-reset-at': '1704600000',
      },
      T,
    );
    expect(rows).toEqual([
      { source: 'respapi', window: 'five_hour', utilization: 0.125, resetsAt: 1704069000, status: null, observedAt: T },
      { source: 'respapi', window: 'seven_day', utilization: 0.8, resetsAt: 1704600000, status: null, observedAt: T },
    ]);
  });

  it('keeps an unknown length in minutes, falls back to the slot name, and prefixes other limit families', () => {
    const rows = parseRespapiQuotaHeaders(
      {
        'x-codex-primary-used-percent': '5',
        'x-codex-primary-window-minutes': '90',
        'x-codex-secondary-used-percent': '7',
        'x-codex-other-primary-used-percent': '40',
        'x-codex-other-primary-window-minutes': '1440',
      },
      T,
    );
    expect(rows.map((r) => [r.window, r.utilization])).toEqual([
      ['90_minute', 0.05],
      ['secondary', 0.07],
      ['codex_other.one_day', 0.4],
    ]);
  });

  it('treats a bare zero without length or reset as no window, like the vendor CLI', () => {
    expect(parseRespapiQuotaHeaders({ 'x-codex-primary-used-percent': '0' }, T)).toEqual([]);
    expect(parseRespapiQuotaHeaders({ 'x-codex-primary-used-percent': 'NaN' }, T)).toEqual([]);
  });
});

describe('parseCliRateLimit', () => {
  it('reads the recorded rate_limit_event of the real CLI', () => {
    // The rate_limit_event line as the real CLI printed it (docs/usage.md), verbatim.
    const line = JSON.parse(
      '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1795400158,"rateLimitType":"five_hour","isUsingOverage":false,"unifiedWindows":{"five_hour":{"utilization":0.18,"resetsAt":1795400158,"status":"allowed"},"seven_day":{"utilization":0.23,"resetsAt":1795734958,"status":"allowed"}}},"uuid":"4e70c870-826d-4c96-a03a-d21c2a6cb7b7","session_id":"ba38052d-9f90-4b4e-9ef3-4d39e32fc870"}',
    ) as { rate_limit_info: unknown };
    expect(parseCliRateLimit(line?.rate_limit_info, T)).toEqual([
      { source: 'cli', window: 'five_hour', utilization: 0.18, resetsAt: 1795400158, status: 'allowed', observedAt: T },
      { source: 'cli', window: 'seven_day', utilization: 0.23, resetsAt: 1795734958, status: 'allowed', observedAt: T },
    ]);
  });

  it('falls back to the top-level window of an event without unifiedWindows', () => {
    expect(parseCliRateLimit({ status: 'rejected', resetsAt: 1795400158, rateLimitType: 'five_hour' }, T)).toEqual([
      {
        source: 'cli',
        window: 'five_hour',
        utilization: null,
        resetsAt: 1795400158,
        status: 'rejected',
        observedAt: T,
      },
    ]);
  });

  it('yields nothing for malformed input', () => {
    for (const bad of [
      null,
      'x',
      42,
      [],
      {},
      { unifiedWindows: [] },
      { unifiedWindows: { 'bad name!': { utilization: 0.1 } } },
      { unifiedWindows: { five_hour: { utilization: 'high' } } },
    ]) {
      expect(parseCliRateLimit(bad, T)).toEqual([]);
    }
  });
});
