// Prometheus metrics (docs/interface.md "Metrics") in a registry owned by one proxy instance (no global state, so two
// proxies in one test process never mix counts), plus the in-memory figures the desktop window shows
// (requests per minute, latency percentiles, recent requests). Requests are recorded when the response
// finishes, because streams outlive `await next()` (docs/principles.md "One middleware per concern").

import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { RouteMode } from './route-table.js';

export interface RequestRecord {
  time: string;
  requestId: string;
  method: string;
  route: string;
  mode: RouteMode;
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

/** The prom-client children of one (mode, route) pair, made once: finished() then allocates no label objects. */
interface Series {
  duration: { observe(value: number): void };
  ttft: { observe(value: number): void };
  /** By status code. */
  requests: Map<number, { inc(value?: number): void }>;
  /** By error type. */
  errors: Map<string, { inc(value?: number): void }>;
}

/** The last `capacity` numbers pushed (order is not kept: only percentiles are read from it). */
class NumberWindow {
  private readonly values: Float64Array;
  private next = 0;
  private size = 0;

  constructor(private readonly capacity: number) {
    this.values = new Float64Array(capacity);
  }

  push(value: number): void {
    this.values[this.next] = value;
    this.next = this.next + 1 === this.capacity ? 0 : this.next + 1;
    if (this.size < this.capacity) this.size++;
  }

  sorted(): number[] {
    return Array.from(this.values.subarray(0, this.size)).sort((a, b) => a - b);
  }
}

export class ProxyMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'mode' | 'route' | 'status'>;
  readonly duration: Histogram<'mode' | 'route'>;
  readonly errors: Counter<'mode' | 'route' | 'type'>;
  readonly cliStatus: Gauge;
  readonly ttft: Histogram<'mode' | 'route'>;
  readonly inFlightGauge: Gauge<'mode'>;
  /** Requests refused before any work: a web page's (cross-site guard), a rebinding page's (host guard). */
  readonly refusedRequests: Counter<'reason'>;
  /** Connections closed at once because a cap was reached (docs/security.md "Another local user or process"). */
  readonly refusedConnections: Counter<'reason'>;

  requestsTotal = 0;
  errorsTotal = 0;
  /** Requests answered 429 by the rate limiter, and when the last was (the window says clients are being limited). */
  rateLimitedTotal = 0;
  lastRateLimitedAt: number | undefined;
  inFlight = 0;
  private latencies = new NumberWindow(SAMPLE_WINDOW);
  private ttfts = new NumberWindow(SAMPLE_WINDOW);
  /** A ring of the last RECENT records; `recentNext` is where the next one goes (the oldest once full). */
  private recent: RequestRecord[] = [];
  private recentNext = 0;
  private buckets = new Map<number, { requests: number; errors: number; latencies: number[] }>();
  private series = new Map<RouteMode, Map<string, Series>>();
  private inFlightByMode = new Map<RouteMode, { inc(): void; dec(): void }>();

  constructor(private readonly now: () => number = Date.now) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'assistant_proxy_requests_total',
      help: 'Total requests processed',
      labelNames: ['mode', 'route', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'assistant_proxy_request_duration_seconds',
      help: 'Request duration in seconds (until the last byte of the response)',
      labelNames: ['mode', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    });
    this.errors = new Counter({
      name: 'assistant_proxy_errors_total',
      help: 'Total errors by type',
      labelNames: ['mode', 'route', 'type'],
      registers,
    });
    this.cliStatus = new Gauge({
      name: 'assistant_proxy_cli_status',
      help: 'Assistant CLI availability (1 found and logged in, 0 otherwise)',
      registers,
    });
    this.ttft = new Histogram({
      name: 'assistant_proxy_time_to_first_token_seconds',
      help: 'Time from request to the first token sent to the client',
      labelNames: ['mode', 'route'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30],
      registers,
    });
    this.inFlightGauge = new Gauge({
      name: 'assistant_proxy_requests_in_flight',
      help: 'Requests being served now',
      labelNames: ['mode'],
      registers,
    });
    this.refusedRequests = new Counter({
      name: 'assistant_proxy_refused_requests_total',
      help: 'Requests refused before any work (web pages of other origins, foreign Host names), by reason',
      labelNames: ['reason'],
      registers,
    });
    this.refusedConnections = new Counter({
      name: 'assistant_proxy_refused_connections_total',
      help: 'Connections closed on arrival because a connection cap was reached, by cap',
      labelNames: ['reason'],
      registers,
    });
  }

  /** A request the rate limiter refused (http/rate-limit.ts). */
  rateLimited(at: number): void {
    this.rateLimitedTotal++;
    this.lastRateLimitedAt = at;
  }

  /** A request refused before any work (it has no ledger row; it still has its request metrics and log line). */
  refused(reason: string): void {
    this.refusedRequests.labels(reason).inc();
  }

  /** A routed request began (counted in flight by its mode until it finishes). */
  started(mode: RouteMode): void {
    this.inFlight++;
    this.inFlightChild(mode).inc();
  }

  /**
   * A request ended. `startedMode` is the mode it was counted in flight under (undefined when it never reached
   * a route). `mayBeError` false: a non-2xx status that is an answer, not a failure (an unhealthy health check).
   */
  finished(record: RequestRecord, startedMode: RouteMode | undefined, mayBeError = true): void {
    if (startedMode !== undefined) {
      this.inFlight = Math.max(0, this.inFlight - 1);
      this.inFlightChild(startedMode).dec();
    }
    this.requestsTotal++;
    const series = this.seriesOf(record.mode, record.route);
    let requests = series.requests.get(record.status);
    if (!requests) {
      requests = this.requests.labels(record.mode, record.route, String(record.status));
      series.requests.set(record.status, requests);
    }
    requests.inc();
    series.duration.observe(record.durationMs / 1000);
    const isError = mayBeError && (record.status >= 400 || record.errorType !== undefined);
    if (isError) {
      this.errorsTotal++;
      const type = record.errorType ?? `http_${record.status}`;
      let errors = series.errors.get(type);
      if (!errors) {
        errors = this.errors.labels(record.mode, record.route, type);
        series.errors.set(type, errors);
      }
      errors.inc();
    }
    if (record.ttftMs !== undefined) {
      series.ttft.observe(record.ttftMs / 1000);
      this.ttfts.push(record.ttftMs);
    }
    this.latencies.push(record.durationMs);
    this.recent[this.recentNext] = record;
    this.recentNext = this.recentNext + 1 === RECENT ? 0 : this.recentNext + 1;
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

  private inFlightChild(mode: RouteMode): { inc(): void; dec(): void } {
    let child = this.inFlightByMode.get(mode);
    if (!child) {
      child = this.inFlightGauge.labels(mode);
      this.inFlightByMode.set(mode, child);
    }
    return child;
  }

  /** The children of one (mode, route) pair; routes are patterns, so there are few. */
  private seriesOf(mode: RouteMode, route: string): Series {
    let byRoute = this.series.get(mode);
    if (!byRoute) {
      byRoute = new Map();
      this.series.set(mode, byRoute);
    }
    let series = byRoute.get(route);
    if (!series) {
      series = {
        duration: this.duration.labels(mode, route),
        ttft: this.ttft.labels(mode, route),
        requests: new Map(),
        errors: new Map(),
      };
      byRoute.set(route, series);
    }
    return series;
  }

  /** Newest first. */
  recentRequests(): RequestRecord[] {
    const out: RequestRecord[] = [];
    const n = this.recent.length;
    for (let i = 1; i <= n; i++) out.push(this.recent[(this.recentNext - i + n) % n]);
    return out;
  }

  summary(): MetricsSummary {
    const nowS = Math.floor(this.now() / 1000);
    const lastSlot = Math.floor(nowS / BUCKET_S) * BUCKET_S;
    const series: MetricsSummary['series'] = [];
    let lastMinute = 0;
    for (let i = BUCKETS - 1; i >= 0; i--) {
      const slot = lastSlot - i * BUCKET_S;
      const b = this.buckets.get(slot);
      const lat = b
        ? percentile(
            [...b.latencies].sort((x, y) => x - y),
            50,
          )
        : null;
      series.push([slot, b?.requests ?? 0, b?.errors ?? 0, lat]);
      if (slot > nowS - 60) lastMinute += b?.requests ?? 0;
    }
    const lat = this.latencies.sorted();
    const ttft = this.ttfts.sorted();
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
