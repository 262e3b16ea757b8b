// Closed-loop HTTP load: `connections` clients each send the next request when the previous answer is complete.
// Latency comes from autocannon's per-response event (hrtime), not its histogram, which keeps whole milliseconds
// (too coarse for "at most 1 ms added"); runStaggered spreads its clients. Percentiles are of the raw samples.

import { Agent, request, type RequestOptions } from 'node:http';
import autocannon from 'autocannon';

export interface RequestSpec {
  /** Base URL of the target, no trailing slash. */
  base: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadResult {
  /** 2xx answers. */
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon's errors count includes timeouts). */
  errors: number;
  statusCodes: Record<string, number>;
  seconds: number;
  /** 2xx answers per second of wall time. */
  rps: number;
  /** Milliseconds, 2xx answers only: their summary and every sample. */
  latency: Summary;
  samples: number[];
}

type Counts = Pick<LoadResult, 'ok' | 'non2xx' | 'errors' | 'statusCodes'>;
const result = (c: Counts, started: number, samples: number[]): LoadResult => {
  const seconds = (performance.now() - started) / 1000;
  return { ...c, seconds, rps: c.ok / seconds, latency: summarize(samples), samples };
};

/** `durationSec` (default 5) unless `amount` (total requests) is set. */
export async function runLoad(
  spec: RequestSpec,
  o: { connections: number; durationSec?: number; amount?: number },
): Promise<LoadResult> {
  const samples: number[] = [];
  const started = performance.now();
  const instance = autocannon({
    url: spec.base + spec.path,
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
    connections: o.connections,
    ...(o.amount !== undefined ? { amount: o.amount } : { duration: o.durationSec ?? 5 }),
    timeout: 30,
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
  });
  const r = await instance;
  const codes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([code, stat]) => [code, stat.count]));
  return result({ ok: r['2xx'], non2xx: r.non2xx, errors: r.errors, statusCodes: codes }, started, samples);
}

/** The options of `node:http`'s request() that POST `spec` through `agent`: nothing between the socket and the clock. */
export function postOptions(spec: RequestSpec, agent: Agent): RequestOptions {
  const { hostname: host, port, pathname, search } = new URL(spec.base + spec.path);
  const headers = { ...spec.headers, 'content-length': String(Buffer.byteLength(spec.body)) };
  return { agent, host, port, path: pathname + search, method: 'POST', headers };
}

/** One request, answered in full: the status and body text (to check a route exists before loading it). */
export async function probeOnce(spec: RequestSpec, timeoutMs = 30_000): Promise<{ status: number; text: string }> {
  const init = { method: 'POST', headers: spec.headers, body: spec.body, signal: AbortSignal.timeout(timeoutMs) };
  const res = await fetch(spec.base + spec.path, init);
  return { status: res.status, text: await res.text() };
}

/**
 * Closed-loop load whose clients start evenly spread over one upstream round trip (`periodMs`), as independent
 * clients do, instead of all at once. With a fixed upstream latency, clients that start together stay in lock
 * step and reach the hop as bursts of `connections` requests every period: the last of each burst then waits for
 * the hop to process all the others, which measures CPU per request times the burst, not the latency one request
 * gains by passing the hop. Both are reported; this one uses plain node:http with one keep-alive socket per client.
 */
export async function runStaggered(
  spec: RequestSpec,
  o: { connections: number; durationSec: number; periodMs: number },
): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections });
  const samples: number[] = [];
  const codes: Record<string, number> = {};
  let errors = 0;
  const started = performance.now();
  const deadline = started + o.durationSec * 1000;
  const options = postOptions(spec, agent);
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const failed = () => resolve(void errors++);
      const req = request(options, (res) => {
        res.on('data', () => undefined).on('error', failed);
        res.on('end', () => {
          const code = res.statusCode ?? 0;
          codes[code] = (codes[code] ?? 0) + 1;
          if (code >= 200 && code < 300) samples.push(performance.now() - t0);
          resolve();
        });
      });
      req.on('error', failed).end(spec.body);
    });
  const client = async (i: number): Promise<void> => {
    await new Promise((r) => setTimeout(r, (i * o.periodMs) / o.connections));
    while (performance.now() < deadline) await once();
  };
  await Promise.all(Array.from({ length: o.connections }, (_, i) => client(i)));
  agent.destroy();
  const non2xx = Object.values(codes).reduce((n, c) => n + c, 0) - samples.length;
  return result({ ok: samples.length, non2xx, errors, statusCodes: codes }, started, samples);
}

export type Summary = Record<'count' | 'mean' | 'p50' | 'p90' | 'p99' | 'max', number>;

/** Nearest-rank percentiles of the values (NaN for an empty set). */
export function summarize(values: ArrayLike<number>): Summary {
  const sorted = Float64Array.from(values).sort();
  const n = sorted.length;
  const at = (p: number): number =>
    n === 0 ? NaN : sorted[Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1))];
  let sum = 0;
  for (const v of sorted) sum += v;
  return { count: n, mean: n ? sum / n : NaN, p50: at(50), p90: at(90), p99: at(99), max: n ? sorted[n - 1] : NaN };
}

/** The median of the finite values, the mean of the middle two for an even count (throughput over rounds). */
export function median(values: number[]): number {
  const finite = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  if (finite.length === 0) return NaN;
  const mid = Math.floor(finite.length / 2);
  return finite.length % 2 ? finite[mid] : (finite[mid - 1] + finite[mid]) / 2;
}
