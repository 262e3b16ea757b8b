// Summary of a latency trace written by bench/latency-trace.mjs: per stage of a request, the median, p90 and p99
// of the time it took (ms), over every traced request (or those whose path starts with TRACE_PATH). The stages
// tell where a hop's added latency is spent: before the upstream request leaves, between the upstream's last byte
// and the client's, and after the last write until the response is finished.
// Usage: npx tsx bench/trace-summary.ts <trace.json> [more traces, summarised one by one]

import { readFileSync } from 'node:fs';
import { summarize } from './stats.js';

type Mark = [stage: string, us: number, bytes?: number];
interface TracedRequest {
  path: string;
  /** The upstream answer's framing: with a content-length, or chunked. */
  framing?: 'length' | 'chunked';
  marks: Mark[];
}

/** Stages as [label, from, to]: `from`/`to` pick one mark's time from a request's marks (undefined when absent). */
type Pick = (m: Mark[]) => number | undefined;
const first = (stage: string): Pick => (m) => m.find((x) => x[0] === stage)?.[1];
const last = (stage: string): Pick => (m) => m.findLast((x) => x[0] === stage)?.[1];
const start: Pick = () => 0;
const stages: Array<[string, Pick, Pick]> = [
  ['received → upstream request created', start, first('upstream-create')],
  ['created → upstream headers written', first('upstream-create'), first('upstream-headers-sent')],
  ['created → upstream request sent', first('upstream-create'), first('upstream-body-sent')],
  ['sent → upstream answer headers (the upstream)', first('upstream-body-sent'), first('upstream-answer-headers')],
  ['upstream headers → upstream end', first('upstream-answer-headers'), first('upstream-end')],
  ['upstream headers → first client write', first('upstream-answer-headers'), first('client-write')],
  ['upstream end → last client write', first('upstream-end'), last('client-write')],
  ['first → last client write', first('client-write'), last('client-write')],
  ['last client write → finish', last('client-write'), first('finish')],
  ['upstream end → finish', first('upstream-end'), first('finish')],
  ['received → finish (whole request)', start, first('finish')],
];

function summary(file: string, all: TracedRequest[]): void {
  // The hop's own share: the whole request minus the upstream's part (request sent until its last byte).
  const own = all.map((r) => {
    const sent = first('upstream-body-sent')(r.marks);
    const end = first('upstream-end')(r.marks);
    const fin = first('finish')(r.marks);
    return sent !== undefined && end !== undefined && fin !== undefined ? fin - (end - sent) : NaN;
  });
  const rows: Array<[string, number[]]> = stages.map(([label, from, to]) => [
    label,
    all.map((r) => {
      const a = from(r.marks);
      const b = to(r.marks);
      return a !== undefined && b !== undefined ? b - a : NaN;
    }),
  ]);
  rows.push(['the hop\'s own time (whole − upstream part)', own]);
  const count = (stage: string) => summarize(all.map((r) => r.marks.filter((m) => m[0] === stage).length));
  console.log(`${file}: ${all.length} requests`);
  console.log('| stage | p50 (ms) | p90 (ms) | p99 (ms) |\n|---|--:|--:|--:|');
  for (const [label, values] of rows) {
    const s = summarize(values.filter(Number.isFinite).map((v) => v / 1000));
    console.log(`| ${label} | ${s.p50.toFixed(3)} | ${s.p90.toFixed(3)} | ${s.p99.toFixed(3)} |`);
  }
  const connects = all.filter((r) => r.marks.some((m) => m[0] === 'upstream-connect')).length;
  console.log(`requests that opened an upstream connection: ${connects}`);
  const up = count('upstream-chunk');
  const cw = count('client-write');
  console.log(`upstream body chunks per request: p50 ${up.p50}, max ${up.max}; client writes per request: p50 ${cw.p50}, max ${cw.max}\n`);
}

for (const file of process.argv.slice(2)) {
  const only = process.env.TRACE_PATH;
  const all = (JSON.parse(readFileSync(file, 'utf8')) as TracedRequest[]).filter((r) => !only || r.path.startsWith(only));
  for (const framing of ['length', 'chunked'] as const) {
    const some = all.filter((r) => r.framing === framing);
    if (some.length) summary(`${file}, answers ${framing === 'length' ? 'with a content-length' : 'chunked'}`, some);
  }
}
