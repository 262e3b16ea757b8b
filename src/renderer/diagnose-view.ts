// The Diagnose tab: runs ControlApi.diagnose and shows each check (pass / fail / skip, what was seen, what to
// do), with the report's text one click from the clipboard for a bug report.

import type { ControlApi, DiagnoseResult } from '../proxy/control-api.js';
import { byId, el, setText } from './dom.js';

const label = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', unset: 'NOT SET UP' } as const;

export class DiagnosePanel {
  private result: DiagnoseResult | undefined;
  private running = false;

  constructor(private readonly control: ControlApi) {}

  setup(): void {
    byId('diagnose-run').addEventListener('click', () => void this.run());
    byId('diagnose-copy').addEventListener('click', async () => {
      if (!this.result) return;
      await this.control.copyText(this.result.text);
      setText('diagnose-message', 'Report copied.');
    });
  }

  async run(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const button = byId<HTMLButtonElement>('diagnose-run');
    button.disabled = true;
    setText('diagnose-message', 'Running the checks… (a tiny real request goes through each mode)');
    try {
      this.result = await this.control.diagnose();
      this.render(this.result);
      const failed = this.result.report.checks.filter((c) => c.status === 'fail').length;
      const unset = this.result.report.checks.some((c) => c.status === 'unset')
        ? ' A mode that is not set up says how to set it up below.'
        : '';
      setText(
        'diagnose-message',
        `${failed === 0 ? 'All checks passed.' : `${failed} check${failed === 1 ? '' : 's'} failed: see what to do below.`}${unset}`,
      );
    } catch (err) {
      setText('diagnose-message', `Diagnose could not run: ${(err as Error).message}`);
    } finally {
      this.running = false;
      button.disabled = false;
    }
  }

  private render(result: DiagnoseResult): void {
    byId('diagnose-checks').replaceChildren(
      ...result.report.checks.map((c) => {
        const li = el('li');
        li.dataset.check = c.id;
        li.dataset.status = c.status;
        const badge = el('span', label[c.status], 'badge');
        badge.dataset.status = c.status;
        li.append(badge, el('span', `${c.title} (${c.mode})`, 'title'), el('span', c.detail, 'detail'));
        if (c.remedy && c.status !== 'pass')
          li.append(
            el(
              'span',
              `${c.status === 'fail' ? 'What to do' : c.status === 'unset' ? 'To use it' : 'Why'}: ${c.remedy}`,
              'remedy',
            ),
          );
        return li;
      }),
    );
    setText('diagnose-text', result.text);
    byId('diagnose-details').hidden = false;
    byId<HTMLButtonElement>('diagnose-copy').disabled = false;
  }
}
