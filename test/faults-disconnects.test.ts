// Many clients leaving mid-stream at once, in every mode: 20 concurrent streamed requests per route, each aborted
// after its first chunk (some still waiting in the CLI queue); and 20 that leave while a non-streamed answer is
// being collected. Afterwards no CLI child runs, no provider request is
// open, and the same routes answer normally (docs/reliability.md "Fault injection").

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, sendRaw, startBed, type Bed } from './fuzz/bed.js';

const nativeBody = {
  model: 'assistant-sonnet-4-20250514',
  max_tokens: 50,
  messages: [{ role: 'user', content: 'Say hello' }],
};
const routes: Array<[string, Record<string, unknown>]> = [
  ['/v1/messages', nativeBody],
  ['/compat/v1/chat/completions', nativeBody],
  ['/api/v1/messages', nativeBody],
  ['/api/v1/chat/completions', nativeBody],
  ['/respapi/responses', { model: 'rm-4', messages: nativeBody.messages }],
];

let bed: Bed;

beforeAll(async () => {
  bed = await startBed({
    cli: { reply: 'one two three four five six seven eight nine ten', tokenDelayMs: 300 },
    settings: { cliMaxConcurrent: 8, cliQueueSize: 16 },
  });
  bed.sim.knobs.chunkIntervalMs = 300;
  // A non-streamed message (what direct mode asks for when the client does not stream) comes in ten writes as
  // slow as the deltas, so a client leaves while it is still being read too.
  bed.sim.knobs.jsonChunks = 10;
  bed.sim.knobs.replyText = 'one two three four five six seven eight nine ten';
});

afterAll(async () => {
  await bed?.close();
});

async function startAndAbort(path: string, body: Record<string, unknown>): Promise<void> {
  const ac = new AbortController();
  try {
    const res = await fetch(bed.proxy.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: true }),
      signal: ac.signal,
    });
    await res.body!.getReader().read();
  } catch {
    // a request still queued may be refused or cut; what matters is what is left behind
  }
  ac.abort();
}

describe('20 clients leaving mid-stream at once', () => {
  it.each(routes)('%s: nothing left running, the route still answers', async (path, body) => {
    await Promise.all(Array.from({ length: 20 }, () => startAndAbort(path, body)));
    expect(await eventually(async () => (await bed.cli.alivePids()).length === 0, 10_000), 'CLI children left').toBe(
      true,
    );
    expect(await eventually(() => bed.sim.openRequests() === 0, 10_000), 'provider requests left open').toBe(true);
    const again = await sendRaw(bed.proxy.url, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(again.status, again.text).toBe(200);
  });
});

async function postAndLeave(path: string, body: Record<string, unknown>, afterMs: number): Promise<void> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(), afterMs);
  try {
    const res = await fetch(bed.proxy.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, stream: false }),
      signal: ac.signal,
    });
    await res.text();
  } catch {
    // the abort
  } finally {
    clearTimeout(timer);
  }
}

describe('20 clients leaving while a non-streamed answer is collected', () => {
  it.each(routes)('%s: nothing left running, the route still answers', async (path, body) => {
    // The answer takes ten deltas 300 ms apart (3 s): every client leaves in the middle of it, and what served it
    // must end well before it would have finished on its own.
    await Promise.all(Array.from({ length: 20 }, () => postAndLeave(path, body, 700)));
    expect(await eventually(async () => (await bed.cli.alivePids()).length === 0, 2_000), 'CLI children left').toBe(
      true,
    );
    expect(await eventually(() => bed.sim.openRequests() === 0, 2_000), 'provider requests left open').toBe(true);
    const again = await sendRaw(bed.proxy.url, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(again.status, again.text).toBe(200);
  });
});
