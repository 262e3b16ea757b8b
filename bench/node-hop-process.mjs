// The minimal Node reverse proxy: fastify with @fastify/http-proxy, every path forwarded to the
// simulator, nothing else (no logging, no checks). It is the Node-level limit of a hop, beside nginx (what a hop
// written in C costs) and direct (no hop). Plain JavaScript run by plain `node`, so no loader sits in its path.
// Usage: node bench/node-hop-process.mjs <upstream base URL>; prints `listening on <url>` on stdout when ready.

import Fastify from 'fastify';
import proxy from '@fastify/http-proxy';
import process from 'node:process';

const upstream = process.argv[2];
if (!upstream) {
  process.stderr.write('usage: node bench/node-hop-process.mjs <upstream base URL>\n');
  process.exit(2);
}
const app = Fastify({ logger: false, bodyLimit: 10 * 1024 * 1024 });
// undici's pool of 128 connections would queue (e)'s 500 streams, so the hop would hold fewer open than the proxy.
await app.register(proxy, { upstream, http2: false, undici: { connections: 1024 } });
const url = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`listening on ${url}\n`);
const stop = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
// The bench holds our stdin open; when it goes away (even killed), so do we: no orphan keeps a port.
process.stdin.on('close', stop).resume();
