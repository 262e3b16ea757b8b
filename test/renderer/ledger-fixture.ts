// The real usage ledger (src/proxy/usage/) for the window's browser tests: a fresh SQLite file holding the
// realistic records of test/main/usage-fixture.ts (recorded through UsageLedger.record, as the pipeline will once
// it is wired to the ledger) and, when a simulator is given, the quota windows parsed from the simulator's own
// quota headers on a real answer (UsageLedger.upstreamHeaders, as direct mode hands them over).

import { join } from 'node:path';
import { UsageLedger } from '../../src/proxy/usage/index.js';
import type { Simulator } from '../simulator/index.js';
import { sampleRecords } from '../main/usage-fixture.js';

export async function openSampleLedger(dir: string, opts: { sim?: Simulator; now?: number; count?: number } = {}): Promise<UsageLedger> {
  const now = opts.now ?? Date.now();
  const ledger = UsageLedger.open({ dataDir: join(dir, 'usage'), retentionDays: 90, maxMb: 64, captureBodies: true, captureCount: 50 });
  for (const row of sampleRecords(now, opts.count)) ledger.record(row);
  if (opts.sim) {
    const unified = 'anthropic-ratelimit-unified';
    opts.sim.knobs.quotaHeaders = {
      [`${unified}-5h-utilization`]: '0.18',
      [`${unified}-5h-reset`]: String(Math.round((now + 2.5 * 3_600_000) / 1000)),
      [`${unified}-5h-status`]: 'allowed',
      [`${unified}-7d-utilization`]: '0.23',
      [`${unified}-7d-reset`]: String(Math.round((now + 4 * 86_400_000) / 1000)),
      [`${unified}-7d-status`]: 'allowed',
    };
    const res = await fetch(`${opts.sim.url}/v1/models`, { headers: { authorization: 'Bearer sk-ant-oat01-ledger-fixture-0123456789' } });
    await res.text();
    ledger.upstreamHeaders('direct', Object.fromEntries(res.headers));
    opts.sim.knobs.quotaHeaders = {};
  }
  ledger.flush();
  return ledger;
}
