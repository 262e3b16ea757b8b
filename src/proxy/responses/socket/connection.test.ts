import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import type { Exchange } from '../../http/exchange.js';
import { ResponseStore } from '../store.js';
import { ResponsesSocket } from './connection.js';

const cleanup: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanup.splice(0)) c();
});

/** A socket served by ResponsesSocket over `exchange`, and the frames its client receives. */
async function socketOver(run: Exchange['run'], keepAliveMs: number) {
  const exchange = { run } as Exchange;
  const dir = mkdtempSync(join(tmpdir(), 'socket-'));
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => wss.once('listening', r));
  const store = new ResponseStore({ dir: join(dir, 'responses'), maxAgeMs: 60_000, maxBytes: 1 << 20 });
  wss.on('connection', (ws) => {
    new ResponsesSocket(ws, {
      exchange,
      store,
      path: '/v1/responses',
      headers: { host: 'localhost' },
      remoteAddress: '127.0.0.1',
      keepAliveMs,
      now: Date.now,
    });
  });
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const frames: Array<{ type: string; status?: number }> = [];
  client.on('message', (d) => frames.push(JSON.parse(String(d)) as { type: string }));
  await new Promise((r) => client.once('open', r));
  cleanup.push(() => {
    client.terminate();
    wss.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return { client, frames };
}

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  return check();
};

describe('ResponsesSocket', () => {
  it('sends keep-alive text frames while the answer is silent, then the events as they come', async () => {
    const { client, frames } = await socketOver(async (_request, sink) => {
      await new Promise((r) => setTimeout(r, 200));
      const data = { type: 'response.completed', response: { id: 'r', output: [] } };
      sink?.({ event: data.type, data });
      return { status: 200, headers: {}, body: undefined, streamed: true };
    }, 40);
    client.send(JSON.stringify({ type: 'response.create', model: 'm', input: 'x' }));
    expect(await until(() => frames.at(-1)?.type === 'response.completed')).toBe(true);
    const keepAlives = frames.filter((f) => f.type === 'keepalive').length;
    expect(keepAlives).toBeGreaterThanOrEqual(2);
    expect(frames.slice(0, keepAlives).every((f) => f.type === 'keepalive')).toBe(true);
  });

  it('ignores response.processed and refuses other messages with a 400 error frame', async () => {
    let dispatched = 0;
    const { client, frames } = await socketOver(async () => {
      dispatched++;
      return { status: 200, headers: {}, body: undefined, streamed: true };
    }, 1000);
    client.send(JSON.stringify({ type: 'response.processed', response_id: 'r' }));
    client.send(JSON.stringify({ type: 'session.update' }));
    client.send(Buffer.from('{}'), { binary: true });
    expect(await until(() => frames.length === 2)).toBe(true);
    expect(frames.map((f) => [f.type, f.status])).toEqual([
      ['error', 400],
      ['error', 400],
    ]);
    expect(dispatched).toBe(0);
  });
});
