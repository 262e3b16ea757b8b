// (o) A Responses turn on the WebSocket against the same turn over HTTP (docs/responses-socket.md): the proxy's CPU
// per streamed turn in direct mode, one proxy, the ways interleaved round by round in one run: a socket that offers
// permessage-deflate (as Codex's does), one that does not, and HTTP. Each turn is the same request (8 earlier turns,
// 8 tools, `store: false`), so the figures differ only by the transport.

import WebSocket from 'ws';
import { userTurn } from './bill.js';
import { nativeHeaders, neutralModel, type Bench } from './context.js';
import { cpuSeconds } from './procfs.js';
import { pair, rowsOf, type Metric } from './report.js';
import { startProxyProcess } from './servers.js';

const tools = Array.from({ length: 8 }, (_, i) => ({
  type: 'function',
  name: `tool_${i}`,
  description: `Tool ${i}`,
  parameters: { type: 'object', properties: {} },
}));
const input = Array.from({ length: 8 }, (_, i) => [
  { role: 'user', content: userTurn(i) },
  { role: 'assistant', content: 'ok' },
]).flat();
const body = { model: neutralModel, instructions: 'Be brief.', input, tools, store: false };

/** One streamed turn over HTTP, read to its end. */
async function overHttp(url: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: nativeHeaders,
    body: JSON.stringify({ ...body, stream: true }),
  });
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
  const proxy = await startProxyProcess(b.proxyOptions);
  const url = `${proxy.url}/api/v1/responses`;
  const open = (perMessageDeflate: boolean) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(url.replace(/^http/, 'ws'), { headers: nativeHeaders, perMessageDeflate });
      ws.once('open', () => resolve(ws)).once('error', reject);
    });
  const sockets = { deflate: await open(true), plain: await open(false) };
  try {
    const ways = {
      deflate: () => onSocket(sockets.deflate),
      plain: () => onSocket(sockets.plain),
      http: () => overHttp(url),
    };
    const order = Object.keys(ways) as Array<keyof typeof ways>;
    const rounds = 12;
    const n = b.cfg.quick ? 10 : 40;
    const spent = { deflate: 0, plain: 0, http: 0 };
    for (let i = 0; i < 5; i++) for (const way of order) await ways[way](); // warm every path
    b.log('(o) CPU of a Responses turn, socket and HTTP');
    // The order turns round by round, so that no way always runs first (warmer, or after another's GC).
    for (let r = 0; r < rounds; r++)
      for (const way of [...order.slice(r % 3), ...order.slice(0, r % 3)]) {
        const before = cpuSeconds(proxy.pid);
        for (let i = 0; i < n; i++) await ways[way]();
        spent[way] += cpuSeconds(proxy.pid) - before;
      }
    const perTurn = (s: number) => (s / (rounds * n)) * 1e6;
    const cpu = { deflate: perTurn(spent.deflate), plain: perTurn(spent.plain), http: perTurn(spent.http) };
    const wl = (socket: string) =>
      `(o) a streamed Responses turn in direct mode (8 turns, 8 tools): on a socket ${socket} (proxy col.) vs over HTTP (direct col.)`;
    const metric: Metric<number> = ['proxy CPU per turn', 'µs', (x) => x];
    b.rows.push(
      ...rowsOf(wl('with permessage-deflate, as Codex opens it'), pair(cpu.deflate, cpu.http), [metric]),
      ...rowsOf(wl('without compression'), pair(cpu.plain, cpu.http), [metric]),
    );
    b.raw.o = cpu;
  } finally {
    for (const ws of Object.values(sockets)) ws.close();
    await proxy.stop();
  }
}
