// The request path keeps nothing of an answered request (docs/performance.md "Memory"): after a few hundred requests
// of every kind (native and translated, whole and streamed, refused as bad input, left by their client mid-answer),
// a garbage collection frees their HTTP request and response objects, their Koa context and its state (where the
// proxy keeps what a request carries), and with them what hangs off them (the upstream exchange, the translation). Counted with WeakRefs after a forced collection,
// and compared between a run of N requests and one of 3N: a per-request leak grows with N, a fixed cache does not.
// No timing is asserted.

import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDirectBed } from './helpers/direct-bed.js';
import type { TestProxy } from './helpers/proxy.js';
import { startSimulator, type Simulator } from './simulator/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const model = 'assistant-sonnet-4-20250514';
let sim: Simulator;
let bed: Awaited<ReturnType<typeof startDirectBed>>;
let proxy: TestProxy;
/** Every request's HTTP request and response, Koa context and state since the last count. */
let seen: WeakRef<object>[] = [];

beforeAll(async () => {
  sim = await startSimulator({ knobs: { replyText: 'A short answer of a few words.' } });
  // The test helper keeps every log line in memory; at warn nothing of a normal request is written.
  bed = await startDirectBed(sim, 'memory', { rateLimitPerMinute: 1_000_000, logLevel: 'warn' });
  proxy = bed.proxy;
  // Koa makes each request's context (and its `state`, where the proxy keeps what a request carries) here.
  const { app } = proxy.proxy;
  const createContext = app.createContext.bind(app);
  app.createContext = (req, res) => {
    const ctx = createContext(req, res);
    seen.push(new WeakRef(req), new WeakRef(res), new WeakRef(ctx), new WeakRef(ctx.state));
    return ctx;
  };
}, 30_000);

afterAll(async () => {
  await bed?.close();
  await sim?.close();
});

const headers = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
const native = (stream: boolean) =>
  JSON.stringify({ model, max_tokens: 100, stream, messages: [{ role: 'user', content: 'hi' }] });
const compat = (stream: boolean) => JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] });

/** One request of kind `i % 6`: the response read to its end, or dropped after its first bytes. */
async function one(i: number): Promise<void> {
  const kind = i % 6;
  const [path, body] =
    kind === 0
      ? ['/api/v1/messages', native(false)]
      : kind === 1
        ? ['/api/v1/messages', native(true)]
        : kind === 2
          ? ['/api/v1/chat/completions', compat(false)]
          : kind === 3
            ? ['/api/v1/chat/completions', compat(true)]
            : kind === 4
              ? ['/api/v1/messages', '{"model":'] // bad input: a 400 in the route's shape
              : ['/api/v1/chat/completions', compat(true)]; // a client that leaves mid-answer
  const ac = new AbortController();
  const res = await fetch(`${proxy.url}${path}`, { method: 'POST', headers, body, signal: ac.signal });
  if (kind === 5) {
    await res.body!.getReader().read();
    ac.abort();
    return;
  }
  await res.arrayBuffer();
}

/** Runs `n` requests, 8 at a time, then collects garbage and counts the request/response objects still alive. */
async function aliveAfter(n: number): Promise<{ alive: number; seen: number; heap: number }> {
  seen = [];
  for (let i = 0; i < n; i += 8) await Promise.all(Array.from({ length: Math.min(8, n - i) }, (_, k) => one(i + k)));
  // The simulator keeps every request it received, for other tests: not the proxy's memory.
  sim.received.length = 0;
  // A request whose client left is cleaned up when the proxy sees the socket close: give it a few turns.
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 20));
    gc();
  }
  return {
    alive: seen.filter((w) => w.deref() !== undefined).length,
    seen: seen.length,
    heap: process.memoryUsage().heapUsed,
  };
}

describe('memory of the request path', () => {
  it('keeps no request or response object of an answered request, whatever the number of requests', async () => {
    await aliveAfter(60); // warm-up: lazy modules, caches, the keep-alive pool
    const small = await aliveAfter(120);
    const large = await aliveAfter(360);
    expect(small.seen).toBe(480);
    expect(large.seen).toBe(1440);
    // A few may be held by a socket still open in the client's keep-alive pool; none per request.
    expect(small.alive, JSON.stringify(small)).toBeLessThanOrEqual(32);
    expect(large.alive, JSON.stringify(large)).toBeLessThanOrEqual(32);
  }, 120_000);
});
