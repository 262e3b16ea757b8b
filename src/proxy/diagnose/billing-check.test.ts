import { describe, expect, it } from 'vitest';
import { billingCheck } from './billing-check.js';
import type { UsageRecord } from '../usage/types.js';

const now = Date.UTC(2026, 10, 27, 12);
const row = (over: Partial<UsageRecord>): UsageRecord => ({
  requestId: 'r',
  startedAt: now - 60_000,
  mode: 'direct',
  route: '/api/v1/chat/completions',
  method: 'POST',
  streamed: false,
  modelRequested: 'm',
  modelServed: null,
  client: 'curl',
  status: 200,
  outcome: 'ok',
  errorType: null,
  tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
  ttftMs: null,
  durationMs: 1,
  billingLane: 'plan',
  refusal: null,
  ...over,
});

describe('billingCheck', () => {
  it('passes without refusals, and says how much went to extra usage', async () => {
    const check = await billingCheck(
      {
        requests: () => ({ rows: [row({}), row({ billingLane: 'extra_usage' })] }),
        overageStates: () => [
          { source: 'direct', status: 'allowed', inUse: true, disabledReason: null, observedAt: now },
        ],
      },
      now,
      'direct',
    );
    expect(check).toMatchObject({
      id: 'billing',
      status: 'pass',
      detail:
        "None recorded. 1 of the last day's 2 requests were billed to extra usage; extra usage is in use now (direct).",
    });
  });

  it('fails with each refusal of the last day, what happened and what to do', async () => {
    const rows = [
      row({ refusal: 'extra_usage_off', status: 400 }),
      row({ refusal: 'extra_usage_off', mode: 'tool' }),
      row({ refusal: 'cli_only_credential' }),
      row({ refusal: 'cli_only_credential', startedAt: now - 2 * 86_400_000 }),
    ];
    const check = await billingCheck({ requests: () => ({ rows }) }, now, 'tool');
    expect(check.status).toBe('fail');
    expect(check.detail).toMatch(/^2 × extra_usage_off \(direct, tool\); 1 × cli_only_credential \(direct\)\./);
    expect(check.remedy).toContain('extra usage is off');
    expect(check.remedy).toContain('This login only works through the CLI');
  });
});
