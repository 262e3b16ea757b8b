// The Usage tab's summary and limits: requests, errors and tokens for today, 7 or 30 days, by model or by mode
// (tiles, two uPlot bar charts and a table), the quota windows as bars with the reset countdown and an
// elapsed-time marker, and CSV export. Data from ControlApi's usage methods (the ledger, docs/usage.md).

import { cacheReadShare } from '../shared/cache-share.js';
import type { ControlApi, SummaryBy, UsageSummary } from '../proxy/control-api.js';
import { byId, el, setText } from './dom.js';
import { formatMs } from './format.js';
import { quotaViews } from './quota.js';
import { currentSpan } from '../shared/pace.js';
import { createBarChart, type BarChart } from './usage-charts.js';

export type Range = 'today' | '7d' | '30d';

/** The start of the range: local midnight today, or of the day 6 / 29 days before it. */
export function rangeStart(range: Range, now: number): number {
  const d = new Date(now);
  d.setHours(0, 0, 0, 0);
  const back = range === 'today' ? 0 : range === '7d' ? 6 : 29;
  d.setDate(d.getDate() - back);
  return d.getTime();
}

const formatCount = (n: number): string =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)} M` : n >= 10_000 ? `${(n / 1000).toFixed(1)} k` : String(n);

/** "Error invoking remote method 'control:x': Error: The ledger …" (Electron's wrapping) to the message itself. */
export const plainError = (err: unknown): string =>
  String((err as Error)?.message ?? err).replace(/^Error invoking remote method '[^']+': (Error: )?/, '');

export class UsagePanel {
  private range: Range = 'today';
  private by: SummaryBy = 'model';
  private daily: BarChart | undefined;
  private groups: BarChart | undefined;

  constructor(private readonly control: ControlApi) {}

  setup(): void {
    for (const b of document.querySelectorAll<HTMLButtonElement>('#usage [data-range]'))
      b.addEventListener('click', () => this.choose('range', b));
    for (const b of document.querySelectorAll<HTMLButtonElement>('#usage [data-by]'))
      b.addEventListener('click', () => this.choose('by', b));
    byId('usage-export').addEventListener('click', () => void this.export());
  }

  private choose(what: 'range' | 'by', button: HTMLButtonElement): void {
    for (const b of document.querySelectorAll<HTMLButtonElement>(`#usage [data-${what}]`))
      b.setAttribute('aria-pressed', String(b === button));
    if (what === 'range') this.range = button.dataset.range as Range;
    else this.by = button.dataset.by as SummaryBy;
    void this.refresh();
  }

  async refresh(): Promise<void> {
    const now = Date.now();
    const from = rangeStart(this.range, now);
    try {
      const [summary, days, limits] = await Promise.all([
        this.control.getUsageSummary(from, now, this.by),
        this.range === 'today' ? Promise.resolve(undefined) : this.control.getUsageSummary(from, now, 'day'),
        this.control.getLimits(),
      ]);
      // Who used the current 5-hour window: its start from the latest reset reported (docs/usage.md).
      const span = currentSpan(limits, 'five_hour', 5 * 3600, now);
      const clients = await this.control.getUsageSummary(span.from, now, 'client');
      byId('usage-error').hidden = true;
      this.renderLimits(limits, now);
      this.renderWindowClients(clients, span.source !== null);
      this.renderSummary(summary, days, from);
    } catch (err) {
      const box = byId('usage-error');
      box.textContent = plainError(err);
      box.hidden = false;
    }
  }

  private renderLimits(limits: Awaited<ReturnType<ControlApi['getLimits']>>, now: number): void {
    const views = quotaViews(limits, now);
    byId('quota-empty').hidden = views.length > 0;
    byId('quota-list').replaceChildren(
      ...views.map((v) => {
        const li = el('li');
        li.dataset.window = v.key;
        const head = el('div', undefined, 'quota-head');
        head.append(
          el('span', `${v.name} · ${v.source}`, 'name'),
          el('span', v.usedPct === null ? 'no figure reported' : `${v.usedPct} % used`, 'used'),
        );
        const bar = el('div', undefined, 'bar');
        bar.dataset.tone = v.tone;
        bar.setAttribute('role', 'meter');
        bar.setAttribute('aria-label', `${v.name} used`);
        bar.setAttribute('aria-valuemin', '0');
        bar.setAttribute('aria-valuemax', '100');
        bar.setAttribute('aria-valuenow', String(v.usedPct ?? 0));
        const fill = el('div', undefined, 'fill');
        fill.style.width = `${v.usedPct ?? 0}%`;
        bar.append(fill);
        if (v.elapsedPct !== null) {
          const mark = el('div', undefined, 'elapsed');
          mark.style.left = `calc(${v.elapsedPct}% - 1px)`;
          mark.title = `${v.elapsedPct} % of the window's time has passed`;
          bar.append(mark);
        }
        const note = [
          v.resetText,
          v.elapsedPct !== null ? `${v.elapsedPct} % of the time passed` : '',
          v.pace,
          v.projection,
        ]
          .filter(Boolean)
          .join(' · ');
        li.append(head, bar, el('p', note, `quota-note${v.pace && v.tone !== 'ok' ? ' ahead' : ''}`));
        return li;
      }),
    );
  }

  /** Each client family's share of the current 5-hour window's tokens (of its requests when none were reported). */
  private renderWindowClients(summary: UsageSummary, known: boolean): void {
    const rows = summary.rows.filter((r) => r.requests > 0);
    const tokens = (r: (typeof rows)[number]) =>
      r.tokens.input + r.tokens.output + r.tokens.cacheRead + r.tokens.cacheWrite;
    const allTokens = rows.reduce((a, r) => a + tokens(r), 0);
    const allRequests = rows.reduce((a, r) => a + r.requests, 0);
    const share = (r: (typeof rows)[number]) => (allTokens > 0 ? tokens(r) / allTokens : r.requests / allRequests);
    byId('window-clients-title').textContent = known ? 'This 5-hour window by client' : 'The last five hours by client';
    byId('window-clients-empty').hidden = rows.length > 0;
    byId('window-clients').replaceChildren(
      ...rows
        .sort((a, b) => share(b) - share(a))
        .map((r) => {
          const li = el('li');
          const pct = Math.round(share(r) * 1000) / 10;
          const head = el('div', undefined, 'quota-head');
          head.append(
            el('span', r.key, 'name'),
            el(
              'span',
              `${pct} % · ${formatCount(r.requests)} request${r.requests === 1 ? '' : 's'} · ${formatCount(tokens(r))} tokens`,
              'used',
            ),
          );
          li.append(head);
          const bar = el('div', undefined, 'bar');
          const fill = el('div', undefined, 'fill');
          fill.style.width = `${pct}%`;
          bar.append(fill);
          li.append(bar);
          // How much of this client's input the provider's cache served: the figure that tells a cheap client from a
          // dear one (docs/usage.md "Reads from the cache").
          const read = cacheReadShare(r.tokens);
          if (read !== null) {
            const readPct = Math.round(read * 1000) / 10;
            const note = el('p', `${readPct} % of its input read from the cache`, 'quota-note cache-read');
            note.dataset.tone = readPct >= 50 ? 'ok' : 'low';
            note.title =
              'Cache reads cost a tenth of plain input; a low figure over a long session means it pays its history again each turn';
            li.append(note);
          }
          return li;
        }),
    );
  }

  private renderSummary(summary: UsageSummary, days: UsageSummary | undefined, from: number): void {
    const t = summary.total;
    setText('u-requests', formatCount(t.requests));
    setText('u-errors', formatCount(t.errors));
    setText('u-in', formatCount(t.tokens.input));
    setText('u-out', formatCount(t.tokens.output));
    const word = this.by === 'day' ? 'model' : this.by;
    setText('usage-groups-title', `Requests and errors by ${word}`);
    setText('usage-key-head', { model: 'Model', mode: 'Mode', lane: 'Lane', client: 'Client' }[word]);
    byId('usage-groups').setAttribute('aria-label', `Requests and errors by ${word}`);
    byId('usage-daily-title').hidden = days === undefined;
    byId('usage-daily').hidden = days === undefined;
    this.groups ??= createBarChart(byId('usage-groups'), 'category');
    this.groups.update(
      summary.rows.map((_, i) => i),
      summary.rows.map((r) => r.requests),
      summary.rows.map((r) => r.errors),
      summary.rows.map((r) => r.key),
    );
    if (days) {
      this.daily ??= createBarChart(byId('usage-daily'), 'time');
      // Every day of the range, zero where nothing ran, so gaps show as gaps.
      const byDay = new Map(days.rows.map((r) => [r.key, r]));
      const xs: number[] = [];
      const req: number[] = [];
      const err: number[] = [];
      for (let d = new Date(from); d.getTime() <= days.to; d.setDate(d.getDate() + 1)) {
        const key = `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
        xs.push(Math.floor(d.getTime() / 1000));
        req.push(byDay.get(key)?.requests ?? 0);
        err.push(byDay.get(key)?.errors ?? 0);
      }
      this.daily.update(xs, req, err);
    }
    byId('usage-rows').replaceChildren(
      ...summary.rows.map((r) => {
        const tr = el('tr');
        tr.append(
          el('td', r.key, 'mono'),
          el('td', String(r.requests), 'num'),
          el('td', String(r.errors), r.errors ? 'num bad' : 'num'),
          el('td', formatCount(r.tokens.input), 'num'),
          el('td', formatCount(r.tokens.output), 'num'),
          el('td', formatCount(r.tokens.cacheRead), 'num'),
          el('td', formatMs(r.ttftP50Ms), 'num nowrap'),
        );
        return tr;
      }),
    );
  }

  private async export(): Promise<void> {
    const now = Date.now();
    try {
      const result = await this.control.exportUsageCsv(rangeStart(this.range, now), now);
      if (result.error) return setText('usage-message', result.error);
      if (result.path) return setText('usage-message', `Saved ${result.rows} rows to ${result.path}.`);
      if (result.csv !== undefined) {
        // No file dialog (a browser test, or a headless host): the CSV goes to the clipboard instead.
        await this.control.copyText(result.csv);
        return setText('usage-message', `Copied ${result.rows} rows as CSV.`);
      }
      setText('usage-message', 'Export cancelled.');
    } catch (err) {
      setText('usage-message', plainError(err));
    }
  }
}
