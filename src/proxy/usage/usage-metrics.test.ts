import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageLedger } from './ledger.js';
import { registerUsageMetrics } from './usage-metrics.js';
import type { UsageRecord } from './types.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function row(over: Partial<UsageRecord>): UsageRecord {
  return {
    requestId: 'r',
    startedAt: 1,
    mode: 'tool',
    route: '/v1/messages',
    method: 'POST',
    streamed: false,
    modelRequested: 'assistant-sonnet-4',
    modelServed: null,
    client: null,
    status: 200,
    outcome: 'ok',
    errorType: null,
    tokens: { input: 11, output: 7, cacheRead: null, cacheWrite: 0 },
    ttftMs: null,
    durationMs: 1,
    ...over,
  };
}

describe('registerUsageMetrics', () => {
  it('counts reported tokens by mode, model and kind, and shows the latest quota fractions', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'usage-metrics-'));
    dirs.push(dir);
    const ledger = UsageLedger.open({ dataDir: dir, retentionDays: 90, maxMb: 10 });
    const registry = new Registry();
    const detach = registerUsageMetrics(registry, ledger);
    ledger.record(row({}));
    ledger.record(
      row({
        mode: 'direct',
        modelServed: 'assistant-haiku-4',
        tokens: { input: 3, output: null, cacheRead: 2, cacheWrite: null },
      }),
    );
    ledger.cliRateLimit({
      unifiedWindows: {
        five_hour: { utilization: 0.18, resetsAt: 1795400158, status: 'allowed' },
        seven_day: { status: 'allowed' },
      },
    });
    const text = await registry.metrics();
    expect(text).toContain('assistant_proxy_tokens_total{mode="tool",model="assistant-sonnet-4",kind="input"} 11');
    expect(text).toContain('assistant_proxy_tokens_total{mode="tool",model="assistant-sonnet-4",kind="output"} 7');
    expect(text).toContain('assistant_proxy_tokens_total{mode="direct",model="assistant-haiku-4",kind="input"} 3');
    expect(text).toContain('assistant_proxy_tokens_total{mode="direct",model="assistant-haiku-4",kind="cache_read"} 2');
    expect(text).not.toMatch(/kind="cache_write"/);
    expect(text).toContain('assistant_proxy_quota_utilization{source="cli",window="five_hour"} 0.18');
    expect(text).not.toContain('window="seven_day"'); // reported without a figure: absent, not 0
    detach();
    ledger.record(row({}));
    expect(await registry.metrics()).toContain(
      'assistant_proxy_tokens_total{mode="tool",model="assistant-sonnet-4",kind="input"} 11',
    );
    ledger.close();
  });
});
