// Prometheus metrics (SPEC.md §4 note 7) in a registry owned by one proxy instance (no global state, so two
// proxies in one test process never mix counts), plus the in-memory figures the desktop window shows
// (requests per minute, latency percentiles, recent requests). Requests are recorded when the response
// finishes, because streams outlive `await next()` (STYLE.md habit 11).

import { Counter, Gauge, Histogram, Registry } from 'prom-client';

export type Mode = 'tool' | 'direct' | 'respapi' | 'none';

export interface RequestRecord {
  time: string;
  requestId: string;
  method: string;
  route: string;
  mode: Mode;
  model?: string;
  status: number;
  durationMs: number;
  ttftMs?: number;
  stream: boolean;
  inputTokens?: number;
  outputTokens?: number;
  errorType?: string;
}

export interface MetricsSummary {
  requestsTotal: number;
  errorsTotal: number;
  inFlight: number;
  requestsPerMinute: number;
  latencyP50Ms: number | null;
  latencyP95Ms: number | null;
  ttftP50Ms: number | null;
  /** One point per 10 s for the last 10 minutes: [unix seconds, requests, errors, p50 latency ms]. */
  series: Array<[number, number, number, number | null]>;
}

const SAMPLE_WINDOW = 500;
const RECENT = 100;
const BUCKET_S = 10;
const BUCKETS = 60;

function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return Math.round(sorted[idx] * 10) / 10;
}

export class ProxyMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'mode' | 'route' | 'status'>;
  readonly duration: Histogram<'mode' | 'route'>;
  readonly errors: Counter<'mode' | 'route' | 'type'>;
  readonly cliStatus: Gauge;
  readonly ttft: Histogram<'mode' | 'route'>;
  readonly inFlightGauge: Gauge<'mode'>;

  requestsTotal = 0;
  errorsTotal = 0;
  inFlight = 0;
  private latencies: number[] = [];
  private ttfts: number[] = [];
  private recent: RequestRecord[] = [];
  private buckets = new Map<number, { requests: number; errors: number; latencies: number[] }>();

  constructor(private readonly now: () => number = Date.now) {
    const registers = [this.registry];
    this.requests = new Counter({ name: 'assistant_proxy_requests_total', help: 'Total requests processed', labelNames: ['mode', 'route', 'status'], registers });
    this.duration = new Histogram({
      name: 'assistant_proxy_request_duration_seconds',
      help: 'Request duration in seconds (until the last byte of the response)',
      labelNames: ['mode', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.errors = new Counter({ name: 'assistant_proxy_errors_total', help: 'Total errors by type', labelNames: ['mode', 'route', 'type'], registers });
    this.cliStatus = new Gauge({ name: 'assistant_proxy_cli_status', help: 'Assistant CLI availability (1 found and logged in, 0 otherwise)', registers });
    this.ttft = new Histogram({
      name: 'assistant_proxy_time_to_first_token_seconds',
      help: 'Time from request to the first token sent to the client',
      labelNames: ['mode', 'route'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    });
    this.inFlightGauge = new Gauge({ name: 'assistant_proxy_requests_in_flight', help: 'Requests being served now', labelNames: ['mode'], registers });
  }

  /** A routed request began (counted in flight by its mode until it finishes). */
  started(mode: Mode): void {
    this.inFlight++;
    this.inFlightGauge.inc({ mode });
  }

  /**
   * A request ended. `startedMode` is the mode it was counted in flight under (undefined when it never reached
   * a route). `mayBeError` false: a non-2xx status that is an answer, not a failure (an unhealthy health check).
   */
  finished(record: RequestRecord, startedMode: Mode | undefined, mayBeError = true): void {
    if (startedMode !== undefined) {
      this.inFlight = Math.max(0, this.inFlight - 1);
      this.inFlightGauge.dec({ mode: startedMode });
    }
    this.requestsTotal++;
    const labels = { mode: record.mode, route: record.route };
    this.requests.inc({ ...labels, status: String(record.status) });
    this.duration.observe(labels, record.durationMs / 1000);
    const isError = mayBeError && (record.status >= 400 || record.errorType !== undefined);
    if (isError) {
      this.errorsTotal++;
      this.errors.inc({ ...labels, type: record.errorType ?? `http_${record.status}` });
    }
    if (record.ttftMs !== undefined) {
      this.ttft.observe(labels, record.ttftMs / 1000);
      this.ttfts.push(record.ttftMs);
      if (this.ttfts.length > SAMPLE_WINDOW) this.ttfts.shift();
    }
    this.latencies.push(record.durationMs);
    if (this.latencies.length > SAMPLE_WINDOW) this.latencies.shift();
    this.recent.unshift(record);
    if (this.recent.length > RECENT) this.recent.pop();
    const slot = Math.floor(this.now() / 1000 / BUCKET_S) * BUCKET_S;
    let bucket = this.buckets.get(slot);
    if (!bucket) {
      bucket = { requests: 0, errors: 0, latencies: [] };
      this.buckets.set(slot, bucket);
      for (const key of this.buckets.keys()) if (key < slot - BUCKET_S * BUCKETS) this.buckets.delete(key);
    }
    bucket.requests++;
    if (isError) bucket.errors++;
    if (bucket.latencies.length < 1000) bucket.latencies.push(record.durationMs);
  }

  recentRequests(): RequestRecord[] {
    return [...this.recent];
  }

  summary(): MetricsSummary {
    const nowS = Math.floor(this.now() / 1000);
    const lastSlot = Math.floor(nowS / BUCKET_S) * BUCKET_S;
    const series: MetricsSummary['series'] = [];
    let lastMinute = 0;
    for (let i = BUCKETS - 1; i >= 0; i--) {
      const slot = lastSlot - i * BUCKET_S;
      const b = this.buckets.get(slot);
      const lat = b ? percentile([...b.latencies].sort((x, y) => x - y), 50) : null;
      series.push([slot, b?.requests ?? 0, b?.errors ?? 0, lat]);
      if (slot > nowS - 60) lastMinute += b?.requests ?? 0;
    }
    const lat = [...this.latencies].sort((a, b) => a - b);
    const ttft = [...this.ttfts].sort((a, b) => a - b);
    return {
      requestsTotal: this.requestsTotal,
      errorsTotal: this.errorsTotal,
      inFlight: this.inFlight,
      requestsPerMinute: lastMinute,
      latencyP50Ms: percentile(lat, 50),
      latencyP95Ms: percentile(lat, 95),
      ttftP50Ms: percentile(ttft, 50),
      series,
    };
  }
}
