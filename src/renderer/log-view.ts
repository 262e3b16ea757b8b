// The Log tab: the proxy's structured log lines as they happen (ControlApi.getLogs, polled by sequence number
// about once a second), filtered by level, with Pause (new lines wait, counted), Copy (the shown lines as the
// JSON the log file holds) and the log file one click away. The lines arrive already redacted (LogTap).

import type { ControlApi, LogLine } from '../proxy/control-api.js';
import { byId, el, setText } from './dom.js';

const order = ['trace', 'debug', 'info', 'warn', 'error', 'fatal'] as const;
const rank = (level: string) => Math.max(0, order.indexOf(level as (typeof order)[number]));
/** Fields every line has, shown in their own columns or not at all. */
const hidden = new Set(['time', 'level', 'msg', 'service', 'pid', 'hostname']);
const KEEP = 1000;

/**
 * A log line's message and fields as the window shows them: a request line reads "GET /v1/models 200 7 ms", then
 * the fields worth reading (request id, mode, model, first token, error type); false flags and a route equal to
 * the path are left out. Other lines show their fields as k=v.
 */
export function describe(msg: string, line: string): { msg: string; fields: string } {
  let obj: Record<string, unknown>;
  try {
    obj = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { msg, fields: line };
  }
  const rest = Object.entries(obj).filter(([k, v]) => !hidden.has(k) && v !== undefined && v !== null && v !== false);
  if (msg === 'request' && typeof obj.method === 'string' && typeof obj.path === 'string') {
    const shown = new Set(['method', 'path', 'status', 'durationMs']);
    if (obj.route === obj.path || obj.route === 'unmatched') shown.add('route');
    if (obj.mode === 'none') shown.add('mode');
    const head = `${obj.method} ${obj.path} ${String(obj.status ?? '')}${typeof obj.durationMs === 'number' ? ` ${Math.round(obj.durationMs)} ms` : ''}`;
    return {
      msg: head,
      fields: rest
        .filter(([k]) => !shown.has(k))
        .map(kv)
        .join(' '),
    };
  }
  return { msg, fields: rest.map(kv).join(' ') };
}

const kv = ([k, v]: [string, unknown]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : String(v)}`;

export class LogPanel {
  private lines: LogLine[] = [];
  private since = 0;
  private paused = false;
  private waiting = 0;
  private level = 'silent';

  constructor(private readonly control: ControlApi) {}

  setup(openLogs: () => void): void {
    byId('log-level').addEventListener('change', () => this.render(true));
    byId('log-pause').addEventListener('click', () => {
      this.paused = !this.paused;
      const button = byId('log-pause');
      button.setAttribute('aria-pressed', String(this.paused));
      button.textContent = this.paused ? 'Resume' : 'Pause';
      if (!this.paused) this.render(true);
      this.note();
    });
    byId('log-copy').addEventListener('click', async () => {
      const shown = this.shown();
      await this.control.copyText(shown.map((l) => l.line).join('\n'));
      setText('log-message', `Copied ${shown.length} line${shown.length === 1 ? '' : 's'}.`);
      setTimeout(() => setText('log-message', ''), 2500);
    });
    byId('log-clear').addEventListener('click', () => {
      this.lines = [];
      this.render(true);
    });
    byId('log-open').addEventListener('click', openLogs);
  }

  async poll(): Promise<void> {
    const page = await this.control.getLogs(this.since);
    this.level = page.level;
    if (page.lines.length > 0) {
      this.since = page.lines[page.lines.length - 1].seq;
      this.lines.push(...page.lines);
      if (this.lines.length > KEEP) this.lines.splice(0, this.lines.length - KEEP);
      if (this.paused) this.waiting += page.lines.length;
      else this.render(false);
    }
    this.note();
  }

  private shown(): LogLine[] {
    const min = rank(byId<HTMLSelectElement>('log-level').value);
    return this.lines.filter((l) => rank(l.level) >= min);
  }

  private note(): void {
    const text =
      this.level === 'silent'
        ? 'The log level is "silent": nothing is logged. Choose another level in Settings.'
        : this.paused
          ? `Paused${this.waiting ? `: ${this.waiting} new line${this.waiting === 1 ? '' : 's'} waiting` : ''}.`
          : '';
    setText('log-note', text);
  }

  private render(full: boolean): void {
    if (this.paused && !full) return;
    this.waiting = 0;
    const box = byId('log-lines');
    // Follow the newest line only when the reader is already at the bottom (scrolling up to read stays put).
    const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 4;
    const shown = this.shown();
    const rendered = shown.slice(-500).map((l) => {
      const row = el('div', undefined, 'log-line');
      row.dataset.level = l.level;
      row.dataset.seq = String(l.seq);
      const shownText = describe(l.msg, l.line);
      row.append(
        el('span', new Date(l.time).toLocaleTimeString(undefined, { hour12: false }), 't'),
        el('span', l.level.toUpperCase(), 'lvl'),
        el('span', shownText.msg, 'msg'),
        el('span', shownText.fields, 'fields'),
      );
      return row;
    });
    box.replaceChildren(...rendered);
    if (shown.length === 0)
      box.append(el('p', this.lines.length ? 'No lines at this level yet.' : 'No log lines yet.', 'muted'));
    if (atBottom || full) box.scrollTop = box.scrollHeight;
  }
}
