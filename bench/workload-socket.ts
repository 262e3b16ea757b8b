// (o) The proxy's CPU per streamed Responses turn on the WebSocket, offering permessage-deflate or not, against the
// same request over HTTP, interleaved (docs/benchmarks.md "What is measured"): the figures differ only by transport.

import WebSocket from 'ws';
import { eightTurns, responsesTools } from './bill.js';
import { nativeHeaders, neutralModel, withProxy, type Bench } from './context.js';
import { cpuPerCall } from './procfs.js';
import { pair, rowsOf, type Metric } from './report.js';

const body = { model: neutralModel, instructions: 'Be brief.', input: eightTurns, tools: responsesTools, store: false };

const wl = (socket: string) =>
  `(o) a streamed Responses turn in direct mode (8 turns, 8 tools): on a socket ${socket} (proxy col.) vs over HTTP (direct col.)`;

/** One streamed turn over HTTP, read to its end. */
async function overHttp(url: string): Promise<void> {
  const init = { method: 'POST', headers: nativeHeaders, body: JSON.stringify({ ...body, stream: true }) };
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status !== 200 || !text.includes('response.completed')) throw new Error(`HTTP turn: ${res.status}`);
}

/** One turn on an open socket, until its last event. */
function onSocket(ws: WebSocket): Promise<void> {
  return new Promise((resolve, reject) => {
    const onMessage = (data: WebSocket.RawData) => {
      const type = (JSON.parse(String(data)) as { type: string }).type;
      if (type === 'keepalive') return;
      if (type === 'error' || type === 'response.failed') reject(new Error(`socket turn: ${String(data)}`));
      else if (type !== 'response.completed') return;
      ws.off('message', onMessage);
      resolve();
    };
    ws.on('message', onMessage);
    ws.send(JSON.stringify({ type: 'response.create', ...body }));
  });
}

export async function runSocketWorkload(b: Bench): Promise<void> {
  await withProxy(b, {}, async (proxy) => {
    const url = `${proxy.url}/api/v1/responses`;
    const open = (perMessageDeflate: boolean) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers: nativeHeaders, perMessageDeflate });
        ws.once('open', () => resolve(ws)).once('error', reject);
      });
    const sockets = { deflate: await open(true), plain: await open(false) };
    try {
      const way = (once: () => Promise<void>) => ({ pid: proxy.pid, once });
      const ways = {
        deflate: way(() => onSocket(sockets.deflate)),
        plain: way(() => onSocket(sockets.plain)),
        http: way(() => overHttp(url)),
      };
      for (let i = 0; i < 5; i++) for (const w of Object.values(ways)) await w.once(); // warm every path
      b.log('(o) CPU of a Responses turn, socket and HTTP');
      const cpu = await cpuPerCall(ways, 12, b.cfg.quick ? 10 : 40);
      const metric: Metric<number> = ['proxy CPU per turn', 'µs', (x) => x];
      b.rows.push(
        ...rowsOf(wl('with permessage-deflate, as Codex opens it'), pair(cpu.deflate, cpu.http), [metric]),
        ...rowsOf(wl('without compression'), pair(cpu.plain, cpu.http), [metric]),
      );
      b.raw.o = cpu;
    } finally {
      for (const ws of Object.values(sockets)) ws.close();
    }
  });
}
