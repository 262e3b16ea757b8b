// The deadlines are the answer path's, not a format's or a mode's (docs/architecture.md "Wire formats",
// docs/reliability.md): every chat row of the route table that names a format, whole and streamed, answers a 504 in
// its family's error shape when its upstream never starts answering: the provider within
// UPSTREAM_FIRST_BYTE_TIMEOUT_MS in direct mode (a non-streamed request asked as one message included), the CLI
// within CLI_FIRST_TOKEN_TIMEOUT_MS in tool mode. The rows are read from the table, so a new format's rows are in
// this matrix the day they are added (a body for the format is all the test needs). Nothing here measures speed:
// each request only has to end long before the upstream would answer (60 s).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenerOf, routeTable } from '../src/proxy/route-table.js';
import { startDirectBed } from './helpers/direct-bed.js';
import type { TestProxy } from './helpers/proxy.js';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';
import { startSimulator, type Simulator } from './simulator/index.js';

const model = 'assistant-sonnet-4-20250514';
const messages = [{ role: 'user', content: 'Say hello' }];

/** A small valid body of each format, with the max_tokens field the format names. */
const bodies: Record<string, (maxTokens: number) => Record<string, unknown>> = {
  'native-chat': (n) => ({ model, messages, max_tokens: n }),
  messages: (n) => ({ model, messages, max_tokens: n }),
  compat: (n) => ({ model, messages, max_tokens: n }),
  responses: (n) => ({ model, input: 'Say hello', max_output_tokens: n }),
  'responses-compact': (n) => ({ model, input: 'Say hello', max_output_tokens: n }),
  'ollama-chat': (n) => ({ model, messages, options: { num_predict: n } }),
  'ollama-generate': (n) => ({ model, prompt: 'Say hello', options: { num_predict: n } }),
};

/** Where a row answers: the Ollama listener's rows on its own port, without their internal prefix (docs/ollama.md). */
function urlOf(proxy: TestProxy, path: string): string {
  if (listenerOf(path) === 'main') return `${proxy.url}${path}`;
  const ollama = proxy.proxy.ollama();
  if (ollama.state !== 'listening') throw new Error(`the Ollama listener is ${ollama.state}`);
  return `${ollama.url}${path.slice('/ollama'.length)}`;
}

const chatRows = (mode: 'tool' | 'direct') =>
  routeTable
    .filter((r) => r.mode === mode && r.format !== undefined)
    .map((r) => ({ path: r.path, format: r.format!, family: r.family }));

/** The error body's type or code, read in the row's family shape (docs/interface.md "Errors"), or the text of a
 * format's own `{"error": text}` shape (formats/format.ts ErrorShape). */
function errorName(family: string, body: Record<string, unknown>): string {
  if (typeof body.error === 'string') return body.error;
  const error = body.error as { type?: string; code?: string };
  return family === 'compat' ? String(error.code) : String(error.type);
}

describe('every format has a body here', () => {
  it.each([...new Set(routeTable.flatMap((r) => (r.format ? [r.format] : [])))])('%s', (format) => {
    expect(bodies[format]).toBeDefined();
  });
});

describe('direct mode: the provider never answers', () => {
  let sim: Simulator;
  let proxy: TestProxy;
  let bed: Awaited<ReturnType<typeof startDirectBed>>;
  beforeAll(async () => {
    sim = await startSimulator();
    sim.knobs.latencyMs = 60_000;
    // undici checks header deadlines on a timer of about a second's resolution: a deadline of whole seconds.
    bed = await startDirectBed(sim, 'deadline', { upstreamFirstByteTimeoutMs: 1000 });
    proxy = bed.proxy;
  });
  afterAll(async () => {
    await bed?.close();
    await sim?.close();
  });

  // 16 tokens fit the 1 s deadline by the provider's estimate, so a non-streaming client's chat is asked as one
  // message; 4,096 do not, so it is streamed upstream and collected. Both end at the first-byte deadline.
  const cases = chatRows('direct').flatMap((row) => [
    { ...row, stream: true, maxTokens: 4096, way: 'streamed' },
    { ...row, stream: false, maxTokens: 4096, way: 'whole, streamed upstream' },
    { ...row, stream: false, maxTokens: 16, way: 'whole, one message upstream' },
  ]);
  it.each(cases)(
    '$path ($format), $way: 504 at UPSTREAM_FIRST_BYTE_TIMEOUT_MS',
    async ({ path, format, family, stream, maxTokens }) => {
      const before = sim.requests('/v1/messages').length;
      const res = await postJson(
        `${proxy.url}${path}`,
        { ...bodies[format](maxTokens), stream },
        { signal: AbortSignal.timeout(20_000) },
      );
      expect(res.status).toBe(504);
      const body = (await res.json()) as Record<string, unknown>;
      expect(errorName(family, body)).toMatch(/timeout/i);
      expect(JSON.stringify(body)).toContain('UPSTREAM_FIRST_BYTE_TIMEOUT_MS');
      const sent = sim.requests('/v1/messages').slice(before);
      expect(sent).toHaveLength(1);
      // Asked as one message only when the client does not stream and the max_tokens sent fits the deadline.
      const upstream = sent[0].json as { stream?: boolean; max_tokens: number };
      expect(upstream.stream).toBe(stream || upstream.max_tokens > 16 ? true : undefined);
    },
  );
});

describe('tool mode: the CLI never starts answering', () => {
  let bed: ToolBed;
  beforeAll(async () => {
    bed = await startToolBed({ scenario: 'hang' }, { cliFirstTokenTimeoutMs: 500, ollamaPort: 0 });
  });

  afterAll(async () => {
    await bed?.close();
  });

  const cases = chatRows('tool').flatMap((row) => [true, false].map((stream) => ({ ...row, stream })));
  it.each(cases)(
    '$path ($format), stream $stream: 504 at CLI_FIRST_TOKEN_TIMEOUT_MS',
    async ({ path, format, family, stream }) => {
      const res = await postJson(
        urlOf(bed.proxy, path),
        { ...bodies[format](64), stream },
        { signal: AbortSignal.timeout(20_000) },
      );
      expect(res.status).toBe(504);
      expect(errorName(family, (await res.json()) as Record<string, unknown>)).toMatch(/timeout/i);
    },
  );
});
