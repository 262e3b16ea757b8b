// The Settings tab: fills the form from settings, sends a patch of what changed through updateSettings, and
// shows each message once, in one place: a field's problem under that field (the live port check's hint gives
// way to it), and at the bottom only what is not about one field. The bottom "applied" note names the address
// only while the proxy runs, so it never contradicts the state pill.

import type { ControlApi, ControlStatus, SettingsResult, SettingsView } from '../proxy/control-api.js';
import { byId, el, setText } from './dom.js';
import { fieldMessage } from './format.js';
import {
  alertKinds,
  allModes,
  generateAccessKey,
  logLevels,
  patchFromValues,
  portRangeMessage,
  valuesFromSettings,
  type FormValues,
} from './settings-form.js';
import { clientBase } from './views.js';

const input = (id: string) => byId<HTMLInputElement>(id);

interface SettingsViewHost {
  control: ControlApi;
  render(status: ControlStatus): void;
  onSettings(settings: SettingsView): void;
}

export class SettingsPanel {
  private settings: SettingsView | undefined;
  private applied = false;
  private portCheck: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly host: SettingsViewHost) {}

  current(): SettingsView | undefined {
    return this.settings;
  }

  setup(): void {
    const level = byId<HTMLSelectElement>('logLevel');
    level.replaceChildren(...logLevels.map((l) => Object.assign(el('option', l), { value: l })));
    const form = byId<HTMLFormElement>('settings-form');
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.apply();
    });
    form.addEventListener('change', () => this.syncFormState());
    input('port').addEventListener('input', () => this.checkPortSoon());
    byId('revert').addEventListener('click', () => {
      if (this.settings) this.fill(this.settings);
      this.showErrors({});
      this.setMessage('');
    });
    byId('generate-key').addEventListener('click', () => {
      input('accessKey').value = generateAccessKey();
    });
    byId('show-key').addEventListener('click', () => {
      const key = input('accessKey');
      key.type = key.type === 'password' ? 'text' : 'password';
      setText('show-key', key.type === 'password' ? 'Show' : 'Hide');
    });
    byId('pick-cli').addEventListener('click', async () => {
      const picked = await this.host.control.pickCliPath();
      if (picked) input('cliPath').value = picked;
    });
  }

  async load(): Promise<void> {
    this.settings = await this.host.control.getSettings();
    this.fill(this.settings);
    this.host.onSettings(this.settings);
  }

  /** Keeps the "applied" note true to the current state (a later Stop must not leave "running on …" behind). */
  onStatus(status: ControlStatus): void {
    if (!this.applied) return;
    this.setMessage(
      status.state === 'running'
        ? `Settings applied. The proxy is running on ${clientBase(status)}.`
        : 'Settings applied.',
      'ok',
    );
  }

  private fill(s: SettingsView): void {
    const v = valuesFromSettings(s);
    input('port').value = v.port;
    for (const radio of document.querySelectorAll<HTMLInputElement>('input[name=network]'))
      radio.checked = radio.value === v.network;
    input('accessKey').value = v.accessKey;
    input('corsOn').checked = v.corsOn;
    byId<HTMLTextAreaElement>('corsOrigins').value = v.corsOrigins;
    for (const box of document.querySelectorAll<HTMLInputElement>('input[name=modes]'))
      box.checked = v.modes.includes(box.value as FormValues['modes'][number]);
    input('rateLimitPerMinute').value = v.rateLimitPerMinute;
    input('rateLimitBurst').value = v.rateLimitBurst;
    input('metricsEnabled').checked = v.metricsEnabled;
    byId<HTMLSelectElement>('logLevel').value = v.logLevel;
    input('cliPath').value = v.cliPath;
    input('ollamaOn').checked = v.ollamaOn;
    input('ollamaPort').value = v.ollamaPort;
    byId<HTMLSelectElement>('ollamaMode').value = v.ollamaMode;
    for (const box of document.querySelectorAll<HTMLInputElement>('input[name=quotaAlerts]'))
      box.checked = v.quotaAlerts.includes(box.value as FormValues['quotaAlerts'][number]);
    this.setHint('');
    this.syncFormState();
  }

  private read(): FormValues {
    const network =
      document.querySelector<HTMLInputElement>('input[name=network]:checked')?.value === 'lan' ? 'lan' : 'loopback';
    return {
      port: input('port').value,
      network,
      accessKey: input('accessKey').value,
      corsOn: input('corsOn').checked,
      corsOrigins: byId<HTMLTextAreaElement>('corsOrigins').value,
      modes: [...document.querySelectorAll<HTMLInputElement>('input[name=modes]:checked')]
        .map((b) => b.value as FormValues['modes'][number])
        .filter((m) => allModes.includes(m)),
      rateLimitPerMinute: input('rateLimitPerMinute').value,
      rateLimitBurst: input('rateLimitBurst').value,
      metricsEnabled: input('metricsEnabled').checked,
      logLevel: byId<HTMLSelectElement>('logLevel').value as FormValues['logLevel'],
      cliPath: input('cliPath').value,
      ollamaOn: input('ollamaOn').checked,
      ollamaPort: input('ollamaPort').value,
      ollamaMode: byId<HTMLSelectElement>('ollamaMode').value === 'direct' ? 'direct' : 'tool',
      quotaAlerts: [...document.querySelectorAll<HTMLInputElement>('input[name=quotaAlerts]:checked')]
        .map((b) => b.value as FormValues['quotaAlerts'][number])
        .filter((k) => alertKinds.includes(k)),
    };
  }

  private syncFormState(): void {
    const v = this.read();
    byId('lan-warning').hidden = v.network !== 'lan';
    byId<HTMLTextAreaElement>('corsOrigins').disabled = !v.corsOn;
    input('ollamaPort').disabled = !v.ollamaOn;
    byId<HTMLSelectElement>('ollamaMode').disabled = !v.ollamaOn;
  }

  private showErrors(errors: Record<string, string>): void {
    for (const p of document.querySelectorAll<HTMLElement>('[data-error-for]')) {
      const message = errors[p.dataset.errorFor ?? ''];
      p.textContent = message ? fieldMessage(message) : '';
      const field = document.getElementById(p.dataset.errorFor ?? '');
      if (field) field.setAttribute('aria-invalid', message ? 'true' : 'false');
    }
    // The field's error replaces the live hint: one message under the port, not two saying the same.
    if (errors.port) this.setHint('');
  }

  private setHint(text: string, kind: 'ok' | 'error' | '' = ''): void {
    setText('port-hint', text);
    byId('port-hint').dataset.kind = kind;
  }

  private setMessage(text: string, kind: 'ok' | 'error' | '' = ''): void {
    const m = byId('settings-message');
    m.textContent = text;
    m.dataset.kind = kind;
  }

  private async apply(): Promise<void> {
    if (!this.settings) return;
    this.applied = false;
    const { patch, errors } = patchFromValues(this.read(), this.settings);
    this.showErrors(errors);
    if (Object.keys(errors).length > 0) return this.setMessage('Not applied: fix the marked fields.', 'error');
    if (Object.keys(patch).length === 0) return this.setMessage('Nothing changed.');
    const button = byId<HTMLButtonElement>('apply');
    button.disabled = true;
    this.setMessage('Applying…');
    let result: SettingsResult;
    try {
      result = await this.host.control.updateSettings(patch);
    } catch (err) {
      result = { ok: false, message: (err as Error).message };
    } finally {
      button.disabled = false;
    }
    if (result.status) this.host.render(result.status);
    if (!result.ok) {
      const fieldErrors = result.errors ?? {};
      this.showErrors(fieldErrors);
      const kept = /previous settings were kept/i.test(result.message ?? '');
      const bottom =
        Object.keys(fieldErrors).length > 0
          ? kept
            ? 'Not applied: the previous settings were kept.'
            : 'Not applied: fix the marked fields.'
          : fieldMessage(result.message ?? 'The settings were not applied.');
      this.setMessage(bottom, 'error');
      return;
    }
    this.showErrors({});
    this.settings = await this.host.control.getSettings();
    this.fill(this.settings);
    this.host.onSettings(this.settings);
    this.applied = true;
    if (result.status) this.onStatus(result.status);
    else this.setMessage('Settings applied.', 'ok');
  }

  private checkPortSoon(): void {
    clearTimeout(this.portCheck);
    this.portCheck = setTimeout(async () => {
      const text = input('port').value.trim();
      const port = Number(text);
      // Only a port the form would send is checked live; anything else gets its one message on Apply.
      if (!/^\d+$/.test(text) || port === this.settings?.port) return this.setHint('');
      if (port < 1 || port > 65535) return this.setHint(portRangeMessage, 'error');
      const { free, message } = await this.host.control.checkPort(port);
      if (input('port').value.trim() !== text) return;
      this.setHint(free ? `Port ${port} is free.` : (message ?? `Port ${port} cannot be used.`), free ? 'ok' : 'error');
    }, 300);
  }
}
