// The result as a markdown table (workload, metric, proxy, direct, nginx, node hop, ccr, and the proxy's ratio to
// each) with the goals underneath, and the same facts plus raw figures as JSON. Written atomically (tmp + rename).

import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * `node`: the minimal Node hop (fastify + @fastify/http-proxy, bench/node-hop-process.mjs). `ccr`: claude-code-router
 * on its native route (bench/ccr.ts), optional: its cells say "n/a (why)" where it was not run.
 */
export type Target = 'proxy' | 'direct' | 'nginx' | 'node' | 'ccr';
export const targets: Target[] = ['proxy', 'direct', 'nginx', 'node', 'ccr'];
type Unit = 'ms' | 'µs' | 'req/s' | 'MB' | '%' | 'count' | 'tokens';
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

export function row(workload: string, metric: string, unit: Unit, cells: Record<Target, Cell>, ratios = true): Row {
  return { workload, metric, unit, cells, ratios };
}

/**
 * Cells of a workload only the proxy and one comparison have (tool mode against the CLI alone, ledger on against
 * off): the comparison sits in the direct column, every other column says `other`.
 */
export function pair<T = Cell>(proxy: T | string, direct: T | string, other = 'n/a'): Record<Target, T | string> {
  return { proxy, direct, nginx: other, node: other, ccr: other };
}

/** Rows of one such workload: `pairRow(workload)(metric, unit, proxy, direct)`. */
export const pairRow =
  (workload: string) =>
  (metric: string, unit: Unit, proxy: Cell, direct: Cell, ratios = true): Row =>
    row(workload, metric, unit, pair(proxy, direct), ratios);

/** Each target's result through `pick`, or its note: the cells of a row, or raw figures per target. */
export function cellsOf<T, C = Cell>(res: Record<Target, T | string>, pick: (r: T, t: Target) => C) {
  const cell = (t: Target) => (typeof res[t] === 'string' ? res[t] : pick(res[t]!, t));
  return Object.fromEntries(targets.map((t) => [t, cell(t)])) as Record<Target, C | string>;
}

/**
 * A metric of a workload measured on every target: `[metric, unit, pick, ratios = true, hop = false]`; `hop`: a
 * figure of the hop itself (its CPU, its memory), which direct has none of.
 */
export type Metric<T> = [string, Unit, (r: T) => Cell, boolean?, boolean?];

/** The rows of one workload, a metric each. */
export function rowsOf<T>(wl: string, res: Record<Target, T | string>, metrics: Array<Metric<T>>): Row[] {
  return metrics.map(([metric, unit, pick, ratios = true, hop = false]) => {
    const cells = cellsOf(res, pick);
    if (hop && typeof res.direct !== 'string') cells.direct = 'n/a (no hop)';
    return row(wl, metric, unit, cells, ratios);
  });
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

const ratio = (a: Cell, b: Cell): string =>
  typeof a !== 'number' || typeof b !== 'number' || !Number.isFinite(a) || !Number.isFinite(b) || b === 0
    ? '—'
    : `${(a / b).toFixed(2)}×`;

export function markdownReport(r: Report): string {
  const table = [
    '| workload | metric | proxy | direct | nginx | node hop | ccr | proxy/direct | proxy/nginx | proxy/node hop | proxy/ccr |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
    ...r.rows.map((row) => {
      const values = targets.map((t) => formatValue(row.cells[t] ?? 'n/a', row.unit));
      const ratios = targets.slice(1).map((t) => (row.ratios ? ratio(row.cells.proxy, row.cells[t] ?? NaN) : '—'));
      const metric = row.unit === 'count' ? row.metric : `${row.metric} (${row.unit})`;
      return `| ${[row.workload, metric, ...values, ...ratios].join(' | ')} |`;
    }),
  ];
  const met = (g: Goal) => (g.met === undefined ? 'not measured' : g.met ? 'yes' : '**no**');
  return [
    `# ${r.title}`,
    '',
    ...r.header.map((h) => `- ${h}`),
    '',
    ...table,
    '',
    '## Goals (reported, not asserted)',
    '',
    '| goal | measured | met |',
    '|---|---|---|',
    ...r.goals.map((g) => `| ${g.goal} | ${g.measured} | ${met(g)} |`),
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
