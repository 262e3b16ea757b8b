// The deadlines are the answer path's, not a format's or a mode's (docs/architecture.md "Wire formats",
// docs/reliability.md): every chat row of the route table that names a format, whole and streamed, answers a 504 in
// its family's error shape when its upstream never starts answering: the provider within
// UPSTREAM_FIRST_BYTE_TIMEOUT_MS in direct mode (a non-streamed request asked as one message included), the CLI
// within CLI_FIRST_TOKEN_TIMEOUT_MS in tool mode. The rows are read from the table, so a new format's rows are in
// this matrix the day they are added (a body for the format is all the test needs). Nothing here measures speed:
// each request only has to end long before the upstream would answer (60 s).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../src/proxy/route-table.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const model = 'assistant-sonnet-4-20250514';
const messages = [{ role: 'user', content: 'Say hello' }];

/** A small valid body of each format, with the max_tokens field the format names. */
const bodies: Record<string, (maxTokens: number) => Record<string, unknown>> = {
  'native-chat': (n) => ({ model, messages, max_tokens: n }),
  messages: (n) => ({ model, messages, max_tokens: n }),
  compat: (n) => ({ model, messages, max_tokens: n }),
  responses: (n) => ({ model, input: 'Say hello', max_output_tokens: n }),
  'ollama-chat': (n) => ({ model, messages, options: { num_predict: n } }),
  'ollama-generate': (n) => ({ model, prompt: 'Say hello', options: { num_predict: n } }),
};

const chatRows = (mode: 'tool' | 'direct') =>
  routeTable
    .filter((r) => r.mode === mode && r.format !== undefined)
    .map((r) => ({ path: r.path, format: r.format!, family: r.family }));

/** The error body's type or code, read in the row's family shape (SPEC.md §7), or the text of a format's own
 * `{"error": text}` shape (wire/wire-format.ts ErrorShape). */
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
  let dir: string;
  beforeAll(async () => {
    sim = await startSimulator();
    sim.knobs.latencyMs = 60_000;
    dir = await mkdtemp(join(tmpdir(), 'chat-deadlines-'));
    const credentialsPath = await writeCliCredentials(dir, {
      accessToken: 'sk-ant-oat01-deadline-abcdef123456',
      refreshToken: 'sk-ant-ort01-deadline-abcdef123456',
      expiresAt: Date.now() + 3_600_000,
    });
    // undici checks header deadlines on a timer of about a second's resolution: a deadline of whole seconds.
    proxy = await startProxy({
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      modes: ['direct'],
      upstreamFirstByteTimeoutMs: 1000,
    });
  });
  afterAll(async () => {
    await proxy?.close();
    await sim?.close();
    await rm(dir, { recursive: true, force: true });
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
  /** Rows under /ollama are served on the Ollama listener's own port, without that internal prefix. */
  const urlOf = (path: string) => {
    if (!path.startsWith('/ollama/')) return `${bed.url}${path}`;
    const status = bed.proxy.proxy.ollama();
    if (status.state !== 'listening') throw new Error(`the Ollama listener is ${status.state}`);
    return `${status.url}${path.slice('/ollama'.length)}`;
  };
  afterAll(async () => {
    await bed?.close();
  });

  const cases = chatRows('tool').flatMap((row) => [true, false].map((stream) => ({ ...row, stream })));
  it.each(cases)(
    '$path ($format), stream $stream: 504 at CLI_FIRST_TOKEN_TIMEOUT_MS',
    async ({ path, format, family, stream }) => {
      const res = await postJson(
        urlOf(path),
        { ...bodies[format](64), stream },
        { signal: AbortSignal.timeout(20_000) },
      );
      expect(res.status).toBe(504);
      expect(errorName(family, (await res.json()) as Record<string, unknown>)).toMatch(/timeout/i);
    },
  );
});
