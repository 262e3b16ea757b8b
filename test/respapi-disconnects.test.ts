// A response-API client that leaves before a non-streamed answer: nothing is answered (no one is there), and the
// proxy does not log the path as an unknown endpoint (it is a known route whose client went away), nor the leaving
// as a failed answer.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRespapiBed, type RespapiBed } from './respapi-bed.js';

describe('response-API client gone before a non-streamed answer', () => {
  let bed: RespapiBed;
  beforeAll(async () => {
    bed = await startRespapiBed({ settings: { logLevel: 'debug' } });
  });
  afterAll(() => bed.close());

  it('logs no "Unknown endpoint" and the route keeps answering', async () => {
    bed.sim.knobs.latencyMs = 400;
    const leave = new AbortController();
    const pending = bed.post(
      '/respapi/responses',
      { model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] },
      { signal: leave.signal },
    );
    setTimeout(() => leave.abort(), 100);
    await expect(pending).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 700));
    const messages = bed.proxy.logs().map((line) => JSON.stringify(line));
    expect(messages.filter((m) => /unknown endpoint/i.test(m))).toEqual([]);
    // Nor as a failed answer: there was no answer to fail, only a client that left (recorded as a 499).
    expect(messages.filter((m) => /error after headers were sent|unhandled error/i.test(m))).toEqual([]);
    expect(messages.some((m) => /client gone before the answer/.test(m))).toBe(true);

    bed.sim.knobs.latencyMs = 0;
    const res = await bed.post('/respapi/responses', { model: 'rm-4', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
  });
});
