// The result as a markdown table (workload, metric, proxy, direct, nginx, node hop, ccr, and the proxy's ratio to each) with the
// goals underneath, and the same facts plus raw figures as JSON. Written atomically (tmp + rename).

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `node`: the minimal Node hop (fastify + @fastify/http-proxy, bench/node-hop-process.mjs). `ccr`: claude-code-router
 * on its native route (bench/ccr.ts), optional: its cells say "n/a (why)" where it was not run.
 */
export type Target = 'proxy' | 'direct' | 'nginx' | 'node' | 'ccr';
export const targets: Target[] = ['proxy', 'direct', 'nginx', 'node', 'ccr'];
type Unit = 'ms' | 'req/s' | 'MB' | '%' | 'count' | 'tokens';
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

export const row = (workload: string, metric: string, unit: Unit, cells: Record<Target, Cell>, ratios = true): Row => ({
  workload,
  metric,
  unit,
  cells,
  ratios,
});

/**
 * Cells of a workload only the proxy and one comparison have (tool mode against the CLI alone, ledger on against
 * off): the comparison sits in the direct column, every other column says `other`.
 */
export const pair = (proxy: Cell, direct: Cell, other = 'n/a'): Record<Target, Cell> => ({
  proxy,
  direct,
  nginx: other,
  node: other,
  ccr: other,
});

/** Rows of one such workload: `pairRow(workload)(metric, unit, proxy, direct)`. */
export const pairRow =
  (workload: string) =>
  (metric: string, unit: Unit, proxy: Cell, direct: Cell, ratios = true): Row =>
    row(workload, metric, unit, pair(proxy, direct), ratios);

/** Cells of each target's result, or its note. */
export function cellsOf<T>(res: Record<Target, T | string>, pick: (r: T) => Cell): Record<Target, Cell> {
  return Object.fromEntries(targets.map((t) => [t, typeof res[t] === 'string' ? res[t] : pick(res[t]!)])) as Record<
    Target,
    Cell
  >;
}

export interface Goal {
  goal: string;
  measured: string;
  /** undefined: could not be measured in this run. */
  met: boolean | undefined;
}

interface Report {
  title: string;
  header: string[];
  rows: Row[];
  goals: Goal[];
  notes: string[];
  raw: Record<string, unknown>;
}

function formatValue(v: Cell, unit: Unit): string {
  if (typeof v === 'string') return v;
  if (!Number.isFinite(v)) return '—';
  if (unit === 'MB') return v.toFixed(1);
  if (unit === '%') return `${v.toFixed(1)} %`;
  if (unit !== 'ms') return Math.round(v).toLocaleString('en-US');
  return Math.abs(v) < 10 ? v.toFixed(2) : Math.abs(v) < 1000 ? v.toFixed(1) : Math.round(v).toString();
}

function ratio(a: Cell, b: Cell): string {
  if (typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b) || b === 0)
    return '—';
  return `${(a / b).toFixed(2)}×`;
}

function markdownTable(rows: Row[]): string {
  const lines = [
    '| workload | metric | proxy | direct | nginx | node hop | ccr | proxy/direct | proxy/nginx | proxy/node hop | proxy/ccr |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const r of rows) {
    const others: Target[] = ['direct', 'nginx', 'node', 'ccr'];
    const values = targets.map((t) => formatValue(r.cells[t] ?? 'n/a', r.unit));
    const ratios = others.map((t) => (r.ratios ? ratio(r.cells.proxy, r.cells[t] ?? NaN) : '—'));
    const metric = r.unit === 'count' ? r.metric : `${r.metric} (${r.unit})`;
    lines.push(`| ${[r.workload, metric, ...values, ...ratios].join(' | ')} |`);
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

/** Writes <dir>/<name>.md and <name>.json; returns their paths. */
export async function writeReport(dir: string, name: string, r: Report): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  const replacer = (_k: string, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v);
  const files: Array<[string, string]> = [
    [join(dir, `${name}.md`), markdownReport(r)],
    [join(dir, `${name}.json`), JSON.stringify(r, replacer, 2) + '\n'],
  ];
  for (const [path, text] of files) {
    await writeFile(`${path}.tmp`, text);
    await rename(`${path}.tmp`, path);
  }
  return files.map(([path]) => path);
}
