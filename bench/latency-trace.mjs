// Latency trace of a hop under load (docs/benchmarks.md "Profiling"): preloaded into the proxy (or the Node hop) with
//   BENCH_PROXY_NODE_ARGS="--import ./bench/latency-trace.mjs"
// it stamps each request's stages with process.hrtime (from Node's and undici's diagnostics channels: no change to
// the code under test): request received, upstream request created and sent, upstream headers, each upstream body
// chunk and its end, each write to the client socket, response finished. When the process exits it writes
// LATENCY_TRACE_DIR/trace-<pid>.json (default the temporary directory): one record per request, times in µs from
// its arrival. SIGUSR2 empties the record (send it after a warm-up). Summarise with `npx tsx bench/trace-summary.ts <file>`. A wait of the hop (time between two stages
// where it was not working on this request) shows as a gap, which a CPU profile cannot show.
import { AsyncLocalStorage } from 'node:async_hooks';
import { Buffer } from 'node:buffer';
import dc from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';

const now = () => Number(process.hrtime.bigint() / 1000n);
const limit = Number(process.env.LATENCY_TRACE_MAX || 200_000);
const als = new AsyncLocalStorage();
/** Finished records, then the open ones at exit. */
const done = [];
const byResponse = new WeakMap();
const byUpstream = new WeakMap();

dc.subscribe('http.server.request.start', ({ request, response }) => {
  const rec = { t0: now(), path: request.url, marks: [] };
  byResponse.set(response, rec);
  // The handler runs synchronously after this message (parserOnIncoming), so it and every promise it makes see rec.
  als.enterWith(rec);
});
const mark = (rec, stage, extra) => {
  if (rec) rec.marks.push(extra === undefined ? [stage, now() - rec.t0] : [stage, now() - rec.t0, extra]);
};
dc.subscribe('undici:request:create', ({ request }) => {
  const rec = als.getStore();
  if (!rec) return;
  byUpstream.set(request, rec);
  mark(rec, 'upstream-create');
});
// A new upstream connection is opened inside the dispatch of the request that needs it.
dc.subscribe('undici:client:beforeConnect', () => mark(als.getStore(), 'upstream-connect'));
// The upstream connection's local port, to tell which requests shared a connection.
dc.subscribe('undici:client:sendHeaders', ({ request, socket }) => mark(byUpstream.get(request), 'upstream-headers-sent', socket?.localPort));
dc.subscribe('undici:request:bodySent', ({ request }) => mark(byUpstream.get(request), 'upstream-body-sent'));
dc.subscribe('undici:request:headers', ({ request, response }) => {
  const rec = byUpstream.get(request);
  if (!rec) return;
  mark(rec, 'upstream-answer-headers');
  // Raw headers alternate name, value (Buffers): note whether the answer carries a length or comes chunked.
  const names = response.headers.filter((_, i) => i % 2 === 0).map((h) => String(h).toLowerCase());
  rec.framing = names.includes('content-length') ? 'length' : 'chunked';
});
dc.subscribe('undici:request:bodyChunkReceived', ({ request, chunk }) => mark(byUpstream.get(request), 'upstream-chunk', chunk?.length));
dc.subscribe('undici:request:trailers', ({ request }) => mark(byUpstream.get(request), 'upstream-end'));
dc.subscribe('undici:request:error', ({ request }) => mark(byUpstream.get(request), 'upstream-error'));

// Every write of the response to its socket (headers, body, chunked framing, terminator) goes through _writeRaw.
const writeRaw = http.OutgoingMessage.prototype._writeRaw;
http.OutgoingMessage.prototype._writeRaw = function traced(data, encoding, callback, size) {
  mark(byResponse.get(this), 'client-write', typeof data === 'string' ? Buffer.byteLength(data) : data?.length);
  return writeRaw.call(this, data, encoding, callback, size);
};
dc.subscribe('http.server.response.finish', ({ response }) => {
  const rec = byResponse.get(response);
  if (!rec) return;
  mark(rec, 'finish');
  if (done.length < limit) done.push({ t0: rec.t0, path: rec.path, framing: rec.framing, marks: rec.marks });
});

// SIGUSR2 forgets what was traced so far, so a driver can leave its warm-up out.
process.on('SIGUSR2', () => {
  done.length = 0;
});
process.on('exit', () => {
  const file = join(process.env.LATENCY_TRACE_DIR || tmpdir(), `trace-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(done));
  process.stderr.write(`latency-trace: ${done.length} requests written to ${file}\n`);
});
