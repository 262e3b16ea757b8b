// ProxyMetrics: the window's figures (recent requests newest first, percentiles over the last 500 samples, the
// per-10-s series) and the Prometheus counts, including after a reset of the registry (the labelled children are
// made once and reused).

import { describe, expect, it } from 'vitest';
import { ProxyMetrics, type RequestRecord } from './metrics.js';
import type { RouteMode } from './route-table.js';

const t0 = 1_700_000_000_000;

function record(i: number, over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    time: new Date(t0).toISOString(),
    requestId: `r${i}`,
    method: 'POST',
    route: '/api/v1/messages',
    mode: 'direct',
    status: 200,
    durationMs: i,
    stream: false,
    ...over,
  };
}

function finish(m: ProxyMetrics, rec: RequestRecord, mode: RouteMode | undefined = rec.mode, mayBeError = true): void {
  if (mode !== undefined) m.started(mode);
  m.finished(rec, mode, mayBeError);
}

/** The value of one sample line of the exposition text, e.g. `assistant_proxy_requests_total{mode="direct",...}`. */
async function sample(m: ProxyMetrics, line: string): Promise<number | undefined> {
  const text = await m.registry.metrics();
  const found = text.split('\n').find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

describe('ProxyMetrics', () => {
  it('lists recent requests newest first, keeping the last 100', () => {
    const m = new ProxyMetrics(() => t0);
    expect(m.recentRequests()).toEqual([]);
    for (let i = 1; i <= 3; i++) finish(m, record(i));
    expect(m.recentRequests().map((r) => r.requestId)).toEqual(['r3', 'r2', 'r1']);
    for (let i = 4; i <= 250; i++) finish(m, record(i));
    const recent = m.recentRequests();
    expect(recent).toHaveLength(100);
    expect(recent[0].requestId).toBe('r250');
    expect(recent[99].requestId).toBe('r151');
    // A copy: changing it does not change what the next caller sees.
    recent.length = 0;
    expect(m.recentRequests()).toHaveLength(100);
  });

  it('takes percentiles over the last 500 durations and time-to-first-token samples only', () => {
    const m = new ProxyMetrics(() => t0);
    expect(m.summary()).toMatchObject({ latencyP50Ms: null, latencyP95Ms: null, ttftP50Ms: null, requestsTotal: 0 });
    for (let i = 0; i < 100; i++) finish(m, record(i, { durationMs: 1_000_000, ttftMs: 1_000_000 }));
    for (let i = 1; i <= 500; i++) finish(m, record(i, { durationMs: i, ttftMs: i / 10 }));
    finish(m, record(501, { durationMs: 0.25 })); // no TTFT: only the duration window moves
    const s = m.summary();
    expect(s.requestsTotal).toBe(601);
    expect(s.latencyP50Ms).toBe(250);
    expect(s.latencyP95Ms).toBe(475);
    expect(s.ttftP50Ms).toBe(25);
  });

  it('counts requests, errors and durations per label set, also after the registry is reset', async () => {
    let now = t0;
    const m = new ProxyMetrics(() => now);
    finish(m, record(1, { durationMs: 20, ttftMs: 5 }));
    finish(m, record(2, { status: 429, errorType: 'rate_limit_error' }));
    finish(m, record(3, { status: 500 }));
    finish(m, record(4, { route: '/health', mode: 'none', status: 503 }), undefined, false);
    finish(m, record(5, { route: 'unmatched', mode: 'none', status: 404 }), undefined);
    now += 10_000;
    finish(
      m,
      record(6, { mode: 'tool', route: '/compat/v1/chat/completions', errorType: 'client_disconnected', status: 499 }),
    );

    expect(m.requestsTotal).toBe(6);
    expect(m.errorsTotal).toBe(4);
    expect(m.inFlight).toBe(0);
    expect(await sample(m, 'assistant_proxy_requests_total{mode="direct",route="/api/v1/messages",status="200"}')).toBe(
      1,
    );
    expect(await sample(m, 'assistant_proxy_requests_total{mode="none",route="/health",status="503"}')).toBe(1);
    expect(
      await sample(m, 'assistant_proxy_errors_total{mode="direct",route="/api/v1/messages",type="rate_limit_error"}'),
    ).toBe(1);
    expect(
      await sample(m, 'assistant_proxy_errors_total{mode="direct",route="/api/v1/messages",type="http_500"}'),
    ).toBe(1);
    expect(await sample(m, 'assistant_proxy_errors_total{mode="none",route="unmatched",type="http_404"}')).toBe(1);
    expect(
      await sample(m, 'assistant_proxy_errors_total{mode="none",route="/health",type="http_503"}'),
    ).toBeUndefined();
    expect(
      await sample(m, 'assistant_proxy_request_duration_seconds_count{mode="direct",route="/api/v1/messages"}'),
    ).toBe(3);
    expect(
      await sample(m, 'assistant_proxy_request_duration_seconds_sum{mode="direct",route="/api/v1/messages"}'),
    ).toBeCloseTo(0.025, 9);
    expect(
      await sample(m, 'assistant_proxy_time_to_first_token_seconds_count{mode="direct",route="/api/v1/messages"}'),
    ).toBe(1);
    expect(await sample(m, 'assistant_proxy_requests_in_flight{mode="direct"}')).toBe(0);
    expect(await sample(m, 'assistant_proxy_requests_in_flight{mode="tool"}')).toBe(0);

    const s = m.summary();
    const slot = Math.floor(t0 / 1000 / 10) * 10;
    expect(s.series.find(([at]) => at === slot)?.slice(1, 3)).toEqual([5, 3]);
    expect(s.series.find(([at]) => at === slot + 10)?.slice(1, 3)).toEqual([1, 1]);
    expect(s.requestsPerMinute).toBe(6);

    m.registry.resetMetrics();
    m.started('direct');
    expect(await sample(m, 'assistant_proxy_requests_in_flight{mode="direct"}')).toBe(1);
    m.finished(record(7, { durationMs: 7 }), 'direct');
    expect(await sample(m, 'assistant_proxy_requests_total{mode="direct",route="/api/v1/messages",status="200"}')).toBe(
      1,
    );
    expect(
      await sample(m, 'assistant_proxy_request_duration_seconds_count{mode="direct",route="/api/v1/messages"}'),
    ).toBe(1);
    expect(await sample(m, 'assistant_proxy_requests_in_flight{mode="direct"}')).toBe(0);
  });
});
