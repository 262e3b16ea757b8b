// The real usage ledger (src/proxy/usage/) for the window's browser tests: a fresh SQLite file holding 30 days of
// realistic history (test/main/usage-fixture.ts, recorded through UsageLedger.record) for the charts to show;
// the tests then add real requests through the proxy (realRequests), which records them itself, and the quota
// windows come from the simulator's own quota headers on direct mode's real answer.

import { join } from 'node:path';
import { UsageLedger } from '../../src/proxy/usage/ledger.js';
import type { Simulator } from '../simulator/index.js';
import { sampleRecords } from '../main/usage-fixture.js';

export async function openSampleLedger(dir: string, opts: { now?: number; count?: number } = {}): Promise<UsageLedger> {
  const now = opts.now ?? Date.now();
  const ledger = UsageLedger.open({
    dataDir: join(dir, 'usage'),
    retentionDays: 90,
    maxMb: 64,
    captureBodies: true,
    captureCount: 50,
  });
  for (const row of sampleRecords(now, opts.count)) ledger.record(row);
  ledger.flush();
  return ledger;
}

/** The simulator's subscription quota headers: 5-hour window 18 % used resetting in 2.5 h, 7-day 23 % in 4 days. */
export function quotaHeaders(now = Date.now()): Record<string, string> {
  const unified = 'anthropic-ratelimit-unified';
  return {
    [`${unified}-5h-utilization`]: '0.18',
    [`${unified}-5h-reset`]: String(Math.round((now + 2.5 * 3_600_000) / 1000)),
    [`${unified}-5h-status`]: 'allowed',
    [`${unified}-7d-utilization`]: '0.23',
    [`${unified}-7d-reset`]: String(Math.round((now + 4 * 86_400_000) / 1000)),
    [`${unified}-7d-status`]: 'allowed',
  };
}

/** Real chat requests through the proxy (tool mode, then direct mode with the quota headers on); their request ids. */
export async function realRequests(port: number, sim: Simulator): Promise<string[]> {
  sim.knobs.quotaHeaders = quotaHeaders();
  const ids: string[] = [];
  for (const path of ['/v1/messages', '/api/v1/messages']) {
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'assistant-sonnet-4-20250514',
        max_tokens: 32,
        messages: [{ role: 'user', content: 'Hello' }],
      }),
    });
    await res.text();
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    ids.push(res.headers.get('x-request-id') ?? '');
  }
  sim.knobs.quotaHeaders = {};
  return ids;
}
