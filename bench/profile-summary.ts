// Summarises a V8 .cpuprofile (node --cpu-prof, see docs/benchmarks.md "Profiling"): self time by area (our code,
// Koa, undici, pino, prom-client, other packages, Node's own JavaScript, native/GC/idle) and the heaviest functions.
// Usage: npx tsx bench/profile-summary.ts <file.cpuprofile> [top=25]
// A .heapprofile (bench/alloc-profile.mjs) is summarised as bytes allocated by area and by function instead.

import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

function area(url: string, fn: string): string {
  if (fn === '(idle)') return 'idle';
  if (fn === '(garbage collector)') return 'GC';
  if (fn === '(program)' || (!url && fn.startsWith('('))) return 'native/program';
  if (url.includes('/node_modules/')) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    const pkg = m?.[1] ?? 'package';
    return ['koa', '@koa/router', 'undici', 'pino', 'prom-client', 'raw-body', 'zod'].includes(pkg) ? pkg : 'other packages';
  }
  if (url.startsWith('node:') || (!url.startsWith('file:') && url !== '')) return 'node internals';
  if (url.includes('/src/proxy/') || url.includes('/dist/proxy/')) return 'our code';
  if (!url) return 'native/program';
  return 'other';
}

const file = process.argv[2];
const top = Number(process.argv[3] ?? 25);

interface HeapNode {
  callFrame: Node['callFrame'];
  selfSize: number;
  children: HeapNode[];
}

/** Bytes allocated (sampled) by area and by function: where a request's garbage comes from. */
function summariseHeap(head: HeapNode): void {
  const areas = new Map<string, number>();
  const fns = new Map<string, number>();
  let total = 0;
  const walk = (n: HeapNode) => {
    total += n.selfSize;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    areas.set(a, (areas.get(a) ?? 0) + n.selfSize);
    const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + n.selfSize);
    n.children.forEach(walk);
  };
  walk(head);
  const mb = (v: number) => `${(v / 1e6).toFixed(1).padStart(7)} MB ${((v / total) * 100).toFixed(1).padStart(5)} %`;
  process.stdout.write(`allocation profile ${file}: ${(total / 1e6).toFixed(1)} MB sampled\n\n`);
  for (const [a, v] of [...areas].sort((x, y) => y[1] - x[1])) process.stdout.write(`${mb(v)}  ${a}\n`);
  process.stdout.write('\n');
  for (const [f, v] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, top)) process.stdout.write(`${mb(v)}  ${f}\n`);
}

const parsed = JSON.parse(readFileSync(file, 'utf8')) as Profile | { head: HeapNode };
if ('head' in parsed) {
  summariseHeap(parsed.head);
  process.exit(0);
}
const p = parsed;
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const self = new Map<number, number>();
p.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (p.timeDeltas[i] ?? 0)));
const total = [...self.values()].reduce((a, b) => a + b, 0);
const idle = [...self.entries()].filter(([id]) => byId.get(id)?.callFrame.functionName === '(idle)').reduce((a, [, v]) => a + v, 0);
const busy = total - idle;
const areas = new Map<string, number>();
const fns = new Map<string, number>();
for (const [id, us] of self) {
  const n = byId.get(id)!;
  const a = area(n.callFrame.url, n.callFrame.functionName);
  areas.set(a, (areas.get(a) ?? 0) + us);
  if (a === 'idle') continue;
  const short = n.callFrame.url.replace(/^.*\/(node_modules|src|dist)\//, '$1/');
  const key = `${n.callFrame.functionName || '(anonymous)'} ${short}:${n.callFrame.lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + us);
}
const pct = (v: number) => `${((v / busy) * 100).toFixed(1).padStart(5)} %`;
process.stdout.write(`profile ${file}: ${(total / 1e6).toFixed(1)} s sampled, busy ${(busy / 1e6).toFixed(1)} s (shares below are of busy time)\n\n`);
for (const [a, v] of [...areas].filter(([a]) => a !== 'idle').sort((x, y) => y[1] - x[1])) process.stdout.write(`${pct(v)}  ${a}\n`);
process.stdout.write('\n');
for (const [f, v] of [...fns].sort((x, y) => y[1] - x[1]).slice(0, top)) process.stdout.write(`${pct(v)}  ${f}\n`);

// Inclusive time of our own functions and of the middleware packages (a frame counted once per sample, however
// deep it recurs): which stage of a request the busy time belongs to.
const parent = new Map<number, number>();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const inclusive = new Map<string, number>();
p.samples.forEach((id, i) => {
  const seen = new Set<string>();
  for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
    const n = byId.get(cur)!;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    if (a !== 'our code') continue;
    const key = `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^.*\/(src|dist)\//, '$1/')}:${n.callFrame.lineNumber + 1}`;
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + (p.timeDeltas[i] ?? 0));
  }
});
process.stdout.write('\ninclusive (our code):\n');
for (const [f, v] of [...inclusive].sort((x, y) => y[1] - x[1]).slice(0, top)) process.stdout.write(`${pct(v)}  ${f}\n`);
