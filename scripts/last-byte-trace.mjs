// A probe preloaded into a Node hop (`node --import ./scripts/last-byte-trace.mjs …`) that splits the time a hop
// adds to one request in two, each from the hop's own clock:
//   inbound   from the client's request arriving (`http.server.request.start`) to the upstream request's headers
//             sent (`undici:client:sendHeaders`): reading, checking and translating the request;
//   outbound  from the upstream answer's last byte (`undici:request:trailers`) to the client answer's last byte
//             handed to the kernel (`http.server.response.finish`): the answer's way back.
// The upstream request is tied to its client request by the async context it was made in (`undici:request:create`
// runs in it), so the figures hold under concurrency. The same diagnostics channels exist in every Node hop of the
// bench (the proxy, the fastify hop, claude-code-router, whose `fetch` is undici too), so all three are measured
// alike, without a change to any of them. Every 2 s (a hop may be ended by a signal, with no exit hook), the records
// [wall-clock ms, inbound ms, outbound ms] go to $TMPDIR/last-byte-<pid>-<entry script>.json.
// docs/benchmark-findings.md "Profiling".

import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { setInterval } from 'node:timers';

const current = new AsyncLocalStorage();
const byResponse = new WeakMap();
const byUpstream = new WeakMap();
const records = [];
diagnostics.subscribe('http.server.request.start', ({ response }) => {
  const record = { start: performance.now(), sent: undefined, upstreamEnd: undefined };
  byResponse.set(response, record);
  current.enterWith(record);
});
diagnostics.subscribe('undici:request:create', ({ request }) => {
  const record = current.getStore();
  if (record) byUpstream.set(request, record);
});
diagnostics.subscribe('undici:client:sendHeaders', ({ request }) => {
  const record = byUpstream.get(request);
  if (record && record.sent === undefined) record.sent = performance.now();
});
diagnostics.subscribe('undici:request:trailers', ({ request }) => {
  const record = byUpstream.get(request);
  if (record) record.upstreamEnd = performance.now();
});
diagnostics.subscribe('http.server.response.finish', ({ response }) => {
  const r = byResponse.get(response);
  if (r?.sent !== undefined && r.upstreamEnd !== undefined)
    records.push([Date.now(), r.sent - r.start, performance.now() - r.upstreamEnd]);
});
const file = join(
  tmpdir(),
  `last-byte-${process.pid}-${(process.argv[1] ?? 'node').replace(/[^A-Za-z0-9.-]+/g, '_').slice(-60)}.json`,
);
let written = 0;
setInterval(() => {
  if (records.length === written) return;
  written = records.length;
  writeFileSync(file, JSON.stringify(records));
}, 2000).unref();
