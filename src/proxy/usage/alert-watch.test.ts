// The alerts on a real ledger: what the request pipeline hands it (records, provider headers, CLI events) is what
// the alerts see; each notice once, as a warn line with its stable text.

import { mkdtempSync, rmSync } from 'node:fs';

import { tmpdir } from 'node:os';

import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { defaultProfile } from '../profile.js';

import { logNotice, watchLaneAlerts } from './alert-watch.js';

import { UsageLedger } from './ledger.js';

import type { UsageRecord } from './types.js';
import { laneAlertKinds } from '../../shared/lane-alerts.js';

const dirs: string[] = [];
const ledgers: UsageLedger[] = [];
afterEach(() => {
  for (const l of ledgers.splice(0)) l.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const row = (lane: UsageRecord['billingLane']): UsageRecord => ({
  requestId: 'r',
  startedAt: Date.now(),
  mode: 'direct',
  route: '/api/v1/messages',
  method: 'POST',
  streamed: false,
  modelRequested: 'm',
  modelServed: 'm',
  client: 'curl',
  status: 200,
  outcome: 'ok',
  errorType: null,
  tokens: { input: 1, output: 1, cacheRead: null, cacheWrite: null },
  ttftMs: null,
  durationMs: 1,
  billingLane: lane,
});

describe('watchLaneAlerts', () => {
  it('writes each alert once as a warn line with a stable text, from records and quota observations', () => {
    const dir = mkdtempSync(join(tmpdir(), 'alert-watch-'));
    dirs.push(dir);
    let t = Date.UTC(2026, 10, 27, 12);
    const ledger = UsageLedger.open({ dataDir: dir, retentionDays: 1, maxMb: 8, now: () => t });
    ledgers.push(ledger);
    const lines: Array<{ obj: Record<string, unknown>; msg: string }> = [];
    const logger = {
      warn: (obj: object, msg: string) => void lines.push({ obj: obj as Record<string, unknown>, msg }),
    };
    const kinds = new Set(laneAlertKinds);
    watchLaneAlerts(ledger, {
      kinds: () => kinds,
      names: defaultProfile.quota,
      now: () => t,
      notify: (n) => logNotice(logger, n),
    });

    ledger.record(row('plan'));
    ledger.record(row('extra_usage'));
    ledger.record(row('extra_usage'));
    const s = t / 1000;
    // 80 % two hours into a 5-hour window: the limit at this pace is reached in half an hour.
    const five = (u: string, status: string) => ({
      'anthropic-ratelimit-unified-5h-utilization': u,
      'anthropic-ratelimit-unified-5h-reset': String(s + 3 * 3600),
      'anthropic-ratelimit-unified-5h-status': status,
    });
    ledger.upstreamHeaders('direct', five('0.8', 'allowed_warning'));
    ledger.upstreamHeaders('direct', five('0.85', 'allowed_warning'));
    ledger.upstreamHeaders('direct', five('1.0', 'rejected'));
    t += 3 * 3600 * 1000 + 1000;
    ledger.cliRateLimit({
      status: 'allowed',
      unifiedWindows: { five_hour: { utilization: 0.01, resetsAt: s + 8 * 3600, status: 'allowed' } },
    });
    ledger.upstreamHeaders('direct', {
      'anthropic-ratelimit-unified-5h-utilization': '0.02',
      'anthropic-ratelimit-unified-5h-reset': String(s + 8 * 3600),
      'anthropic-ratelimit-unified-5h-status': 'allowed',
    });

    expect(lines.map((l) => l.msg)).toEqual([
      'quota alert: a request was billed to extra usage',
      'quota alert: limit projected before reset',
      'quota alert: usage available again',
    ]);
    expect(lines[1].obj).toMatchObject({ alert: 'projected_limit', window: 'five_hour', source: 'direct' });
  });
});
