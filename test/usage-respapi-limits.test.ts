// Response-API mode reports its subscription windows on every answer (docs/usage.md "Quota windows"): one answer
// carrying them puts them in the ledger's limits, named by their length.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { startRespapiBed, type RespapiBed } from './respapi-bed.js';

describe('response-API quota windows', () => {
  let bed: RespapiBed;
  let ledger: UsageLedger;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'usage-respapi-'));
    ledger = UsageLedger.open({ dataDir, retentionDays: 30, maxMb: 16 });
    bed = await startRespapiBed({ usage: ledger });
  });
  afterAll(async () => {
    await bed.close();
    ledger.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('an answer with primary and secondary windows shows as five_hour and seven_day', async () => {
    const resetAt = Math.floor(Date.now() / 1000) + 3600;
    bed.sim.knobs.respapiQuotaHeaders = {
      'x-codex-primary-used-percent': '42',
      'x-codex-primary-window-minutes': '300',
      'x-codex-primary-reset-at': String(resetAt),
      'x-codex-secondary-used-percent': '7.5',
      'x-codex-secondary-window-minutes': '10080',
    };
    const res = await bed.post('/respapi/responses', { model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    await res.text();
    const windows = ledger.quotaWindows().filter((w) => w.source === 'respapi');
    expect(windows.map((w) => [w.window, w.utilization, w.resetsAt])).toEqual(
      expect.arrayContaining([
        ['five_hour', 0.42, resetAt],
        ['seven_day', 0.075, null],
      ]),
    );
    expect(ledger.requests().rows[0]).toMatchObject({ mode: 'respapi', outcome: 'ok', status: 200 });
  });
});
