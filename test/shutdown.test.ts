// Shutdown (docs/http.md): stop accepting, let in-flight streams finish up to the grace period, then end them
// and every CLI child. Driven through tool mode with the fake CLI, because its children are what must not leak.

import { afterEach, describe, expect, it } from 'vitest';
import { postJson, readSse, startToolBed, waitFor, type ToolBed } from './helpers/tool-proxy.js';

let bed: ToolBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

const chat = { model: 'assistant-sonnet-4-20250514', stream: true, messages: [{ role: 'user', content: 'hi' }] };

describe('graceful shutdown', () => {
  it('lets an in-flight stream finish within the grace period and refuses new connections', async () => {
    bed = await startToolBed({ reply: 'one two three four five six', tokenDelayMs: 60 });
    const res = await postJson(`${bed.url}/compat/v1/chat/completions`, chat);
    expect(res.status).toBe(200);
    const eventsPromise = readSse(res);
    const closing = bed.proxy.proxy.close(10_000);
    // New connections are refused while the stream drains.
    await expect(fetch(`${bed.url}/v1/models`)).rejects.toThrow();
    const events = await eventsPromise;
    await closing;
    const text = events
      .filter((e) => e.data !== '[DONE]')
      .map((e) => (e.data as any).choices?.[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('one two three four five six');
    expect(events.at(-1)?.data).toBe('[DONE]');
    expect(await bed.cli.alivePids()).toEqual([]);
  });

  it('ends streams and CLI children that outlive the grace period', async () => {
    bed = await startToolBed({ scenario: 'hang' }, { cliFirstTokenTimeoutMs: 60_000 });
    const res = postJson(`${bed.url}/compat/v1/chat/completions`, chat).catch((err: Error) => err);
    expect(await waitFor(async () => (await bed!.cli.alivePids()).length === 1)).toBe(true);
    await bed.proxy.proxy.close(300);
    await res;
    expect(await waitFor(async () => (await bed!.cli.alivePids()).length === 0, 5000)).toBe(true);
  });
});
