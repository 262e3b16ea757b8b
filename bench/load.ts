// Closed-loop HTTP load with autocannon's programmatic API: `connections` clients each send the next request when
// the previous answer is complete, for a duration or a number of requests. Latency is taken from autocannon's
// per-response event (hrtime, sub-millisecond) rather than its histogram, which keeps whole milliseconds only.

import { Agent, request } from 'node:http';
import autocannon from 'autocannon';
import { Samples, type Summary } from './stats.js';

export interface RequestSpec {
  /** Base URL of the target (proxy, simulator or nginx), no trailing slash. */
  base: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface LoadOptions {
  connections: number;
  /** Seconds; ignored when amount is set. */
  durationSec?: number;
  /** Total requests. */
  amount?: number;
  /** Raw 2xx latencies are returned too (for merging rounds). */
  keepSamples?: boolean;
  /** Requests per second over all connections (open loop); unset = as fast as answers come (closed loop). */
  overallRate?: number;
}

export interface LoadResult {
  /** 2xx answers. */
  ok: number;
  non2xx: number;
  /** Connection errors and timeouts (autocannon's errors count includes timeouts). */
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  seconds: number;
  /** 2xx answers per second of wall time. */
  rps: number;
  /** Milliseconds, 2xx answers only. */
  latency: Summary;
  samples?: Samples;
}

export async function runLoad(spec: RequestSpec, o: LoadOptions): Promise<LoadResult> {
  const samples = new Samples();
  const started = performance.now();
  const instance = autocannon({
    url: spec.base + spec.path,
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
    connections: o.connections,
    ...(o.amount !== undefined ? { amount: o.amount } : { duration: o.durationSec ?? 5 }),
    timeout: 30,
    ...(o.overallRate !== undefined ? { overallRate: o.overallRate } : {}),
  });
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
  });
  const result = await instance;
  const seconds = (performance.now() - started) / 1000;
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stat.count;
  return {
    ok: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    statusCodes,
    seconds,
    rps: result['2xx'] / seconds,
    latency: samples.summary(),
    samples: o.keepSamples ? samples : undefined,
  };
}

/** One request, answered in full: the status and body text (to check a route exists before loading it). */
export async function probeOnce(spec: RequestSpec): Promise<{ status: number; text: string }> {
  const res = await fetch(spec.base + spec.path, {
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
    signal: AbortSignal.timeout(30_000),
  });
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
  const url = new URL(spec.base + spec.path);
  const agent = new Agent({ keepAlive: true, maxSockets: o.connections });
  const samples = new Samples();
  const statusCodes: Record<string, number> = {};
  let ok = 0;
  let non2xx = 0;
  let errors = 0;
  const started = performance.now();
  const deadline = started + o.durationSec * 1000;
  const headers = { ...spec.headers, 'content-length': String(Buffer.byteLength(spec.body)) };
  const once = (): Promise<void> =>
    new Promise((resolve) => {
      const t0 = performance.now();
      const req = request(
        { agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () => {
            const code = res.statusCode ?? 0;
            statusCodes[code] = (statusCodes[code] ?? 0) + 1;
            if (code >= 200 && code < 300) {
              ok++;
              samples.push(performance.now() - t0);
            } else non2xx++;
            resolve();
          });
          res.on('error', () => {
            errors++;
            resolve();
          });
        },
      );
      req.on('error', () => {
        errors++;
        resolve();
      });
      req.end(spec.body);
    });
  const client = async (i: number): Promise<void> => {
    await new Promise((r) => setTimeout(r, (i * o.periodMs) / o.connections));
    while (performance.now() < deadline) await once();
  };
  await Promise.all(Array.from({ length: o.connections }, (_, i) => client(i)));
  agent.destroy();
  const seconds = (performance.now() - started) / 1000;
  return {
    ok,
    non2xx,
    errors,
    timeouts: 0,
    statusCodes,
    seconds,
    rps: ok / seconds,
    latency: samples.summary(),
    samples,
  };
}
