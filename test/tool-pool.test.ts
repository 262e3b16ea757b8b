// The warm CLI pool through the proxy (docs/performance.md "Warm CLI pool"): after a request, a process started
// with the same arguments waits; the next such request takes it; stopping the proxy ends every warm process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startToolBed, type ToolBed } from './helpers/tool-proxy.js';

let bed: ToolBed;
beforeAll(async () => {
  bed = await startToolBed({}, { cliPoolSize: 1 });
});
afterAll(async () => {
  await bed.close();
});

interface PoolView {
  warm: number;
  hits: number;
  misses: number;
}

async function pool(): Promise<PoolView> {
  const res = await fetch(`${bed.url}/health/detailed`);
  const body = (await res.json()) as { components: Record<string, unknown> } & Record<string, unknown>;
  return (body.components?.cli_pool ?? body.cli_pool) as PoolView;
}

async function until(check: () => Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const body = { model: 'assistant-sonnet-4-20250514', max_tokens: 50, messages: [{ role: 'user', content: 'say hi' }] };

describe('warm CLI pool', () => {
  it('keeps a process warm after a request and hands it to the next one with the same arguments', async () => {
    const first = await postJson(`${bed.url}/v1/messages`, body);
    expect(first.status).toBe(200);
    await until(async () => (await pool()).warm === 1);
    // The first request's child may still be on its way out; then only the warm one is left.
    await until(async () => (await bed.cli.alivePids()).length === 1);
    const warmPids = await bed.cli.alivePids();

    const second = await postJson(`${bed.url}/v1/messages`, body);
    expect(second.status).toBe(200);
    expect((await second.json()) as { content: unknown[] }).toMatchObject({ content: [{ type: 'text' }] });
    const view = await pool();
    expect(view.hits).toBe(1);
    // The process that answered is the one that was waiting.
    const answered = (await bed.cli.records()).filter((r) => r.prompt !== null).map((r) => r.pid);
    expect(answered).toContain(warmPids[0]);
  });

  it('ends every warm process when the proxy stops', async () => {
    await until(async () => (await pool()).warm === 1);
    await bed.proxy.close();
    await until(async () => (await bed.cli.alivePids()).length === 0);
  });
});
