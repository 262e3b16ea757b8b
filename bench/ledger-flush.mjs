// How long one write of the usage ledger holds the event loop, by rows per write (docs/benchmarks.md "The ledger's
// writes and the p99"): a real ledger on a temporary directory, rows recorded and then flushed by hand, the time of
// each flush() taken with hrtime; median of BATCHES writes per size.
// Usage: npx tsc -p tsconfig.build.json && node bench/ledger-flush.mjs   (SIZES=16,32,80 BATCHES=40 IDS=time)

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { randomUUID } from 'node:crypto';
import { newRequestId } from '../dist/proxy/http/request-id.js';
import { UsageLedger } from '../dist/proxy/usage/ledger.js';

const sizes = (process.env.SIZES ?? '16,32,80').split(',').map(Number);
const batches = Number(process.env.BATCHES ?? 40);
const dir = mkdtempSync(join(tmpdir(), 'ledger-flush-'));
const ledger = UsageLedger.open({ dataDir: dir, retentionDays: 30, maxMb: 512, flushMs: 3_600_000, flushRows: Number.MAX_SAFE_INTEGER });
let seq = 0;
// IDS: the request ids of the rows. `time` (default) is what the proxy makes (http/request-id.ts: the time, then
// random digits); `random`, wholly random ids (the proxy's before 2026-11-24); `sequential`, a counter.
const ids = process.env.IDS ?? 'time';
const requestIdOf = {
  time: () => newRequestId(),
  random: () => `req_${randomUUID().replaceAll('-', '')}`,
  sequential: () => `req_${(seq++).toString(16).padStart(32, '0')}`,
};
if (!requestIdOf[ids]) throw new Error(`IDS must be one of ${Object.keys(requestIdOf).join(', ')}`);
const row = () => ({
  requestId: requestIdOf[ids](),
  startedAt: Date.now(),
  mode: 'direct',
  route: '/api/v1/messages',
  method: 'POST',
  streamed: false,
  modelRequested: 'assistant-sonnet-4-20250514',
  modelServed: 'assistant-sonnet-4-20250514',
  client: 'curl',
  status: 200,
  outcome: 'ok',
  errorType: null,
  tokens: { input: 12, output: 34, cacheRead: 0, cacheWrite: 0 },
  ttftMs: 5,
  durationMs: 100,
});
// PREFILL: rows written before the timing starts, as in a ledger that has served for a while (0 by default).
const prefill = Number(process.env.PREFILL ?? 0);
for (let i = 0; i < prefill; i++) {
  ledger.record(row());
  if (i % 1000 === 999) ledger.flush();
}
ledger.flush();
for (const size of sizes) {
  const times = [];
  for (let b = 0; b < batches; b++) {
    for (let i = 0; i < size; i++) ledger.record(row());
    const t0 = process.hrtime.bigint();
    ledger.flush();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  process.stdout.write(`${size} rows per write: median ${median.toFixed(3)} ms, p90 ${times[Math.floor(times.length * 0.9)].toFixed(3)} ms (${((median * 1000) / size).toFixed(1)} µs a row)\n`);
}
ledger.close();
rmSync(dir, { recursive: true, force: true });
