// The Usage tab's request history (from the ledger, newest first, filtered by mode and outcome, paged with "Show
// older") and the inspector for one request: route, mode, model, status, outcome, timings, token counts, headers,
// and bodies only where capture was on.

import type { ControlApi, Outcome, RequestQuery, UsageDetail, UsageRecord } from '../proxy/control-api.js';
import { modeShortLabels } from '../shared/modes.js';
import { byId, el, setText } from './dom.js';
import { formatMs } from './format.js';
import { plainError } from './usage-view.js';

const outcomeText: Record<Outcome, string> = {
  ok: 'ok',
  rejected: 'rejected',
  upstream_error: 'upstream error',
  client_gone: 'client gone',
  timeout: 'timeout',
  error: 'error',
};
const modeText = (m: UsageRecord['mode']) => (m === null ? '–' : modeShortLabels[m]);
const tokens = (n: number | null) => (n === null ? '–' : String(n));

const laneText: Record<NonNullable<UsageRecord['billingLane']>, string> = {
  plan: 'the plan (subscription limits)',
  extra_usage: 'extra usage',
  api_key: "the client's own API key",
  response_api: 'the response API',
};
const refusalText: Record<NonNullable<UsageRecord['refusal']>, string> = {
  extra_usage_off: 'third-party use while extra usage is off',
  cli_only_credential: 'a login that only works through the CLI',
};

export class HistoryPanel {
  private rows: UsageRecord[] = [];
  private nextBefore: number | undefined;

  constructor(private readonly control: ControlApi) {}

  setup(): void {
    for (const id of ['history-mode', 'history-outcome'])
      byId(id).addEventListener('change', () => void this.refresh());
    byId('history-more').addEventListener('click', () => void this.load(true));
  }

  refresh(): Promise<void> {
    return this.load(false);
  }

  private query(older: boolean): RequestQuery {
    const mode = byId<HTMLSelectElement>('history-mode').value;
    const outcome = byId<HTMLSelectElement>('history-outcome').value;
    return {
      limit: 50,
      ...(older && this.nextBefore !== undefined ? { before: this.nextBefore } : {}),
      ...(mode ? { mode: mode as RequestQuery['mode'] } : {}),
      ...(outcome ? { outcome: outcome as Outcome } : {}),
    };
  }

  private async load(older: boolean): Promise<void> {
    try {
      const page = await this.control.getUsageRequests(this.query(older));
      this.rows = older ? [...this.rows, ...page.rows] : page.rows;
      this.nextBefore = page.nextBefore;
      this.render();
    } catch (err) {
      // The summary above shows the same error in its banner; the table just stays empty.
      this.rows = [];
      this.render();
      setText('history-empty', plainError(err));
    }
  }

  private render(): void {
    byId('history-rows').replaceChildren(
      ...this.rows.map((r) => {
        const tr = el('tr');
        const open = el('button', `${r.method} ${r.route}`, 'linkish');
        open.type = 'button';
        open.setAttribute('aria-label', `Inspect ${r.method} ${r.route} at ${new Date(r.startedAt).toLocaleString()}`);
        open.addEventListener('click', () => void this.inspect(r.requestId));
        const cell = el('td');
        cell.append(open);
        const outcome = el(
          'td',
          `${r.status} ${outcomeText[r.outcome]}`,
          r.outcome === 'ok' ? 'ok nowrap' : 'bad nowrap',
        );
        tr.dataset.requestId = r.requestId;
        tr.append(
          el(
            'td',
            new Date(r.startedAt).toLocaleString(undefined, {
              month: 'short',
              day: 'numeric',
              hour: '2-digit',
              minute: '2-digit',
              second: '2-digit',
              hour12: false,
            }),
          ),
          cell,
          el('td', modeText(r.mode), 'nowrap col-mode'),
          el('td', r.modelServed ?? r.modelRequested ?? '–'),
          outcome,
          el('td', formatMs(r.durationMs), 'num nowrap'),
          el('td', `${tokens(r.tokens.input)} / ${tokens(r.tokens.output)}`, 'num nowrap'),
        );
        return tr;
      }),
    );
    setText('history-empty', 'No requests match.');
    byId('history-empty').hidden = this.rows.length > 0;
    byId('history-more').hidden = this.nextBefore === undefined;
  }

  async inspect(requestId: string): Promise<void> {
    let detail: UsageDetail | undefined;
    try {
      detail = await this.control.getUsageRequest(requestId);
    } catch (err) {
      detail = undefined;
      setText('history-empty', plainError(err));
    }
    const section = byId('inspector');
    if (!detail) {
      section.hidden = true;
      return;
    }
    const r = detail.record;
    const fields: Array<[string, string]> = [
      ['Request id', r.requestId],
      ['Started', new Date(r.startedAt).toLocaleString()],
      ['Route', `${r.method} ${r.route}`],
      ['Mode', modeText(r.mode)],
      ['Model requested', r.modelRequested ?? '–'],
      ['Model served', r.modelServed ?? '–'],
      ['Client', r.client ?? '–'],
      ['Status', String(r.status)],
      ['Outcome', `${outcomeText[r.outcome]}${r.errorType ? ` (${r.errorType})` : ''}`],
      ['Streamed', r.streamed ? 'yes' : 'no'],
      ['First token', formatMs(r.ttftMs)],
      ['Duration', formatMs(r.durationMs)],
      [
        'Tokens',
        `${tokens(r.tokens.input)} in, ${tokens(r.tokens.output)} out, ${tokens(r.tokens.cacheRead)} cache read, ${tokens(r.tokens.cacheWrite)} cache write${r.tokensPartial ? ' (the answer ended before its final count)' : ''}`,
      ],
      // Which lane paid, as the provider reported it, or as the CLI process last reported it (docs/usage.md "Lanes").
      [
        'Paid by',
        r.billingLane
          ? `${laneText[r.billingLane]}${r.laneCarried ? ' (carried: the CLI reported no change since its last report)' : ''}`
          : 'not reported',
      ],
      ...(r.refusal ? [['Billing refusal', refusalText[r.refusal]] as [string, string]] : []),
    ];
    byId('inspector-fields').replaceChildren(...fields.flatMap(([k, v]) => [el('dt', k), el('dd', v)]));
    setText('inspector-title', `Request ${r.requestId}`);
    const b = detail.bodies;
    setText(
      'inspector-headers',
      b && Object.keys(b.headers).length
        ? Object.entries(b.headers)
            .map(([k, v]) => `${k}: ${v}`)
            .join('\n')
        : 'Not kept (headers are kept with bodies, when capture is on).',
    );
    byId('inspector-nobodies').hidden = Boolean(b && (b.request !== null || b.response !== null));
    byId('inspector-request').hidden = !b || b.request === null;
    byId('inspector-response').hidden = !b || b.response === null;
    setText('inspector-request', b?.request ? `Request body${b.truncated ? ' (truncated)' : ''}:\n${b.request}` : '');
    setText(
      'inspector-response',
      b?.response ? `Response body${b.truncated ? ' (truncated)' : ''}:\n${b.response}` : '',
    );
    section.hidden = false;
    byId('inspector-title').focus();
  }
}
