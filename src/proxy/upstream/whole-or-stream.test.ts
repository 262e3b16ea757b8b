// The dispatch handler that reads a provider answer whole or hands it over as a stream: which answers come whole,
// that nothing is lost when an answer turns into a stream halfway, back-pressure, and that an abort or a reader that
// stops early ends the upstream request.

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WholeOrStreamHandler, type WholeOrStream } from './whole-or-stream.js';

type Route = (req: IncomingMessage, res: ServerResponse) => void;
const routes = new Map<string, Route>();
const closed = new Map<string, Promise<unknown>>();
let server: Server;
let origin: string;
const agent = new Agent();

beforeAll(async () => {
  server = createServer((req, res) => {
    closed.set(req.url!, once(res, 'close'));
    req.resume();
    req.on('end', () => routes.get(req.url!)!(req, res));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await agent.close();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function exchange(
  path: string,
  limit: number,
  signal?: AbortSignal,
): { answer: Promise<WholeOrStream>; seen: string[] } {
  const seen: string[] = [];
  const answer = new Promise<WholeOrStream>((resolve, reject) => {
    const handler = new WholeOrStreamHandler(limit, { resolve, reject }, signal, (h) =>
      seen.push(String(h['x-marker'])),
    );
    agent.dispatch(
      { origin, path, method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } },
      handler,
    );
  });
  return { answer, seen };
}

async function readAll(stream: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of stream) parts.push(chunk);
  return Buffer.concat(parts);
}

const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + seed) % 251));

describe('WholeOrStreamHandler', () => {
  it('hands over a chunked answer within the bound as one Buffer, with its status and headers', async () => {
    routes.set('/chunked', (_req, res) => {
      res.writeHead(201, { 'content-type': 'application/json', 'x-marker': 'm1' });
      res.write('{"a":');
      setTimeout(() => res.end('1}'), 10);
    });
    const { answer, seen } = exchange('/chunked', 1024);
    const a = await answer;
    expect(a.statusCode).toBe(201);
    expect(a.headers['content-type']).toBe('application/json');
    expect(a.whole?.toString()).toBe('{"a":1}');
    expect(a.body).toBeUndefined();
    expect(seen).toEqual(['m1']);
  });

  it('hands over an event stream at once, so its first event passes on before the upstream ends', async () => {
    let finish!: () => void;
    routes.set('/sse', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\ndata: {}\n\n');
      finish = () => res.end('event: b\ndata: {}\n\n');
    });
    const { answer } = exchange('/sse', 1024 * 1024);
    const a = await answer;
    expect(a.whole).toBeUndefined();
    const first = (await a.body![Symbol.asyncIterator]().next()).value as Buffer;
    expect(first.toString()).toBe('event: a\ndata: {}\n\n');
    finish();
    expect((await readAll(a.body!)).toString()).toBe('event: b\ndata: {}\n\n');
  });

  it('streams an answer announced longer than the bound, byte for byte', async () => {
    const payload = bytes(5000, 3);
    routes.set('/long', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(payload.length) });
      res.end(payload);
    });
    const a = await exchange('/long', 1000).answer;
    expect(a.whole).toBeUndefined();
    expect((await readAll(a.body!)).equals(payload)).toBe(true);
  });

  it('turns a chunked answer into a stream when it grows past the bound, keeping what was read first', async () => {
    const payload = bytes(9000, 5);
    routes.set('/grows', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(payload.subarray(0, 600));
      setTimeout(() => res.write(payload.subarray(600, 1500)), 5);
      setTimeout(() => res.end(payload.subarray(1500)), 10);
    });
    const a = await exchange('/grows', 1000).answer;
    expect(a.whole).toBeUndefined();
    expect((await readAll(a.body!)).equals(payload)).toBe(true);
  });

  it('pauses the upstream while a stream is not read (back-pressure)', async () => {
    const chunk = Buffer.alloc(64 * 1024, 1);
    let written = 0;
    routes.set('/big', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
    });
    const a = await exchange('/big', 1024).answer;
    await sleep(200);
    // Nothing reads: what arrived waits in the stream's buffer and the sockets', far short of the 64 MB on offer.
    expect(a.body!.readableLength).toBeLessThan(4 * 1024 * 1024);
    expect(written).toBeLessThan(32 * 1024 * 1024);
    a.body!.destroy();
    await closed.get('/big');
  });

  it('ends the upstream request when the reader destroys the stream early', async () => {
    routes.set('/abandoned', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\ndata: {}\n\n');
    });
    const a = await exchange('/abandoned', 1024).answer;
    a.body!.destroy();
    await closed.get('/abandoned');
  });

  it('rejects when the signal aborts before the answer, and ends the upstream request', async () => {
    routes.set('/slow', () => undefined);
    const abort = new AbortController();
    const { answer } = exchange('/slow', 1024, abort.signal);
    await sleep(30);
    abort.abort();
    await expect(answer).rejects.toMatchObject({ name: 'AbortError' });
    await closed.get('/slow');
  });

  it('rejects at once for a signal already aborted', async () => {
    routes.set('/never', (_req, res) => res.end('{}'));
    const abort = new AbortController();
    abort.abort(new Error('client gone'));
    await expect(exchange('/never', 1024, abort.signal).answer).rejects.toThrow('client gone');
  });

  it('rejects when the upstream breaks off an answer it was reading whole', async () => {
    routes.set('/broken', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '200' });
      res.write('{"id":');
      setTimeout(() => res.socket?.destroy(), 10);
    });
    await expect(exchange('/broken', 1024).answer).rejects.toBeInstanceOf(Error);
  });
});
