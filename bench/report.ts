// The result as a markdown table (workload, metric, proxy, direct, nginx, node hop, ccr, and the proxy's ratio to each) with the
// goals underneath, and the same facts plus raw figures as JSON. Written atomically (tmp + rename).

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `node`: the minimal Node hop (fastify + @fastify/http-proxy, bench/node-hop-process.mjs). `ccr`: claude-code-router
 * on its native route (bench/ccr.ts), optional: its cells say "n/a (why)" where it was not run.
 */
export type Target = 'proxy' | 'direct' | 'nginx' | 'node' | 'ccr';
export type Unit = 'ms' | 'req/s' | 'MB' | '%' | 'count' | 'tokens';
/** A number, or a note such as "n/a (route not implemented)". */
export type Cell = number | string;

export interface Row {
  workload: string;
  metric: string;
  unit: Unit;
  cells: Record<Target, Cell>;
  /** Ratios only mean something for like-for-like quantities (not for error counts or differences). */
  ratios: boolean;
}

export interface Goal {
  goal: string;
  measured: string;
  /** undefined: could not be measured in this run. */
  met: boolean | undefined;
}

export interface Report {
  title: string;
  header: string[];
  rows: Row[];
  goals: Goal[];
  notes: string[];
  raw: Record<string, unknown>;
}

export function formatValue(v: Cell, unit: Unit): string {
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return '—';
  switch (unit) {
    case 'req/s':
      return Math.round(v).toLocaleString('en-US');
    case 'count':
    case 'tokens':
      return Math.round(v).toLocaleString('en-US');
    case 'MB':
      return v.toFixed(1);
    case '%':
      return `${v.toFixed(1)} %`;
    case 'ms':
      return Math.abs(v) < 10 ? v.toFixed(2) : Math.abs(v) < 1000 ? v.toFixed(1) : Math.round(v).toString();
  }
}

function ratio(a: Cell, b: Cell): string {
  if (typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b) || b === 0)
    return '—';
  return `${(a / b).toFixed(2)}×`;
}

function unitLabel(row: Row): string {
  return row.unit === 'count' ? row.metric : `${row.metric} (${row.unit})`;
}

export function markdownTable(rows: Row[]): string {
  const lines = [
    '| workload | metric | proxy | direct | nginx | node hop | ccr | proxy/direct | proxy/nginx | proxy/node hop | proxy/ccr |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    const c = r.cells;
    // Rows written before the Node hop or ccr was a column (or a workload a peer has no equivalent in) leave it out.
    const f = (t: Target) => formatValue(c[t] ?? 'n/a', r.unit);
    const q = (t: Target) => (r.ratios ? ratio(c.proxy, c[t] ?? NaN) : '—');
    lines.push(
      `| ${r.workload} | ${unitLabel(r)} | ${f('proxy')} | ${f('direct')} | ${f('nginx')} | ${f('node')} | ${f('ccr')} | ${q('direct')} | ${q('nginx')} | ${q('node')} | ${q('ccr')} |`,
    );
  }
  return lines.join('\n');
}

export function markdownReport(r: Report): string {
  const goals = ['| goal | measured | met |', '|---|---|---|'];
  for (const g of r.goals)
    goals.push(`| ${g.goal} | ${g.measured} | ${g.met === undefined ? 'not measured' : g.met ? 'yes' : '**no**'} |`);
  return [
    `# ${r.title}`,
    '',
    ...r.header.map((h) => `- ${h}`),
    '',
    markdownTable(r.rows),
    '',
    '## Goals (reported, not asserted)',
    '',
    goals.join('\n'),
    '',
    ...(r.notes.length ? ['## Notes', '', ...r.notes.map((n) => `- ${n}`), ''] : []),
  ].join('\n');
}

async function writeAtomic(path: string, text: string): Promise<void> {
  await writeFile(`${path}.tmp`, text);
  await rename(`${path}.tmp`, path);
}

/** Writes <dir>/<name>.md and <name>.json; returns their paths. */
export async function writeReport(dir: string, name: string, r: Report): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const md = join(dir, `${name}.md`);
  const json = join(dir, `${name}.json`);
  await writeAtomic(md, markdownReport(r));
  const replacer = (_k: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v);
  await writeAtomic(
    json,
    JSON.stringify(
      { title: r.title, header: r.header, rows: r.rows, goals: r.goals, notes: r.notes, raw: r.raw },
      replacer,
      2,
    ) + '\n',
  );
  return [md, json];
}
