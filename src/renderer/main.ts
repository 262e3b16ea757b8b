// The dashboard page. It knows only ControlApi (window.control, from the preload in the app, or from the test's
// Playwright bridge): it polls status, metrics and recent requests about once a second, edits settings through
// updateSettings (errors shown beside their field), and builds copy-ready client snippets.

import type { ControlApi, ControlStatus, SettingsResult, SettingsView } from '../proxy/control-api.js';
import { createChart, type Chart } from './chart.js';
import { byId, el, setText } from './dom.js';
import { fieldMessage } from './format.js';
import { allModes, generateAccessKey, logLevels, patchFromValues, valuesFromSettings, type FormValues } from './settings-form.js';
import { clientSnippets, dummyKey, maskKey, snippetModel, type Snippet } from './snippets.js';
import './style.css';
import { clientBase, renderBanners, renderMetrics, renderRequests, renderSessions, renderStatus } from './views.js';

type Control = ControlApi & { onStatus?(listener: (status: ControlStatus) => void): () => void };

declare global {
  interface Window {
    control?: Control;
  }
}

const POLL_MS = 1000;
let control: Control;
let settings: SettingsView | undefined;
let lastStatus: ControlStatus | undefined;
let chart: Chart | undefined;
let snippets: Snippet[] = [];

function showFatal(message: string): void {
  const box = byId('fatal');
  box.textContent = message;
  box.hidden = false;
}

function render(status: ControlStatus): void {
  lastStatus = status;
  renderStatus(status, Date.now());
  renderBanners(status, (notice) => void control.dismissNotice(notice).then(render));
  renderSnippets();
}

function endSession(id: string): void {
  void control.endSession(id).then((left) => renderSessions(left, endSession));
}

async function poll(): Promise<void> {
  try {
    const [status, metrics, recent, sessions] = await Promise.all([control.getStatus(), control.getMetrics(), control.getRecentRequests(), control.getSessions()]);
    render(status);
    renderMetrics(metrics);
    chart?.update(metrics.series);
    renderRequests(recent);
    renderSessions(sessions, endSession);
    byId('fatal').hidden = true;
  } catch (err) {
    showFatal(`Lost contact with the app: ${(err as Error).message}`);
  } finally {
    setTimeout(() => void poll(), POLL_MS);
  }
}

// ---- settings form ----

const input = (id: string) => byId<HTMLInputElement>(id);

function fillForm(s: SettingsView): void {
  const v = valuesFromSettings(s);
  input('port').value = v.port;
  for (const radio of document.querySelectorAll<HTMLInputElement>('input[name=network]')) radio.checked = radio.value === v.network;
  input('accessKey').value = v.accessKey;
  input('corsOn').checked = v.corsOn;
  byId<HTMLTextAreaElement>('corsOrigins').value = v.corsOrigins;
  for (const box of document.querySelectorAll<HTMLInputElement>('input[name=modes]')) box.checked = v.modes.includes(box.value as FormValues['modes'][number]);
  input('rateLimitPerMinute').value = v.rateLimitPerMinute;
  input('rateLimitBurst').value = v.rateLimitBurst;
  input('metricsEnabled').checked = v.metricsEnabled;
  byId<HTMLSelectElement>('logLevel').value = v.logLevel;
  input('cliPath').value = v.cliPath;
  setText('port-hint', '');
  syncFormState();
}

function readForm(): FormValues {
  const network = document.querySelector<HTMLInputElement>('input[name=network]:checked')?.value === 'lan' ? 'lan' : 'loopback';
  return {
    port: input('port').value,
    network,
    accessKey: input('accessKey').value,
    corsOn: input('corsOn').checked,
    corsOrigins: byId<HTMLTextAreaElement>('corsOrigins').value,
    modes: [...document.querySelectorAll<HTMLInputElement>('input[name=modes]:checked')].map((b) => b.value as FormValues['modes'][number]).filter((m) => allModes.includes(m)),
    rateLimitPerMinute: input('rateLimitPerMinute').value,
    rateLimitBurst: input('rateLimitBurst').value,
    metricsEnabled: input('metricsEnabled').checked,
    logLevel: byId<HTMLSelectElement>('logLevel').value as FormValues['logLevel'],
    cliPath: input('cliPath').value,
  };
}

function syncFormState(): void {
  const v = readForm();
  byId('lan-warning').hidden = v.network !== 'lan';
  byId<HTMLTextAreaElement>('corsOrigins').disabled = !v.corsOn;
}

function showErrors(errors: Record<string, string>): void {
  for (const p of document.querySelectorAll<HTMLElement>('[data-error-for]')) {
    const message = errors[p.dataset.errorFor ?? ''];
    p.textContent = message ? fieldMessage(message) : '';
    const field = document.getElementById(p.dataset.errorFor ?? '');
    if (field) field.setAttribute('aria-invalid', message ? 'true' : 'false');
  }
}

function setMessage(text: string, kind: 'ok' | 'error' | '' = ''): void {
  const m = byId('settings-message');
  m.textContent = text;
  m.dataset.kind = kind;
}

async function apply(): Promise<void> {
  if (!settings) return;
  const { patch, errors } = patchFromValues(readForm(), settings);
  showErrors(errors);
  if (Object.keys(errors).length > 0) return setMessage('Fix the fields marked above.', 'error');
  if (Object.keys(patch).length === 0) return setMessage('Nothing changed.');
  const button = byId<HTMLButtonElement>('apply');
  button.disabled = true;
  setMessage('Applying…');
  let result: SettingsResult;
  try {
    result = await control.updateSettings(patch);
  } catch (err) {
    result = { ok: false, message: (err as Error).message };
  } finally {
    button.disabled = false;
  }
  if (result.status) render(result.status);
  if (!result.ok) {
    showErrors(result.errors ?? {});
    setMessage(result.message ?? 'The settings were not applied.', 'error');
    return;
  }
  settings = await control.getSettings();
  fillForm(settings);
  const where = result.status?.state === 'running' ? ` The proxy is running on ${clientBase(result.status)}.` : '';
  setMessage(`Settings applied.${where}`, 'ok');
}

let portCheck: ReturnType<typeof setTimeout> | undefined;
function checkPortSoon(): void {
  clearTimeout(portCheck);
  portCheck = setTimeout(async () => {
    const text = input('port').value.trim();
    if (!/^\d+$/.test(text)) return setText('port-hint', '');
    const port = Number(text);
    if (port === settings?.port) return setText('port-hint', '');
    const { free, message } = await control.checkPort(port);
    setText('port-hint', free ? `Port ${port} is free.` : (message ?? `Port ${port} cannot be used.`));
    byId('port-hint').dataset.kind = free ? 'ok' : 'error';
  }, 300);
}

function setupForm(): void {
  const level = byId<HTMLSelectElement>('logLevel');
  level.replaceChildren(...logLevels.map((l) => Object.assign(el('option', l), { value: l })));
  const form = byId<HTMLFormElement>('settings-form');
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    void apply();
  });
  form.addEventListener('change', syncFormState);
  input('port').addEventListener('input', checkPortSoon);
  byId('revert').addEventListener('click', () => {
    if (settings) fillForm(settings);
    showErrors({});
    setMessage('');
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
    const picked = await control.pickCliPath();
    if (picked) input('cliPath').value = picked;
  });
}

// ---- client snippets ----

function renderSnippets(): void {
  if (!lastStatus || !settings) return;
  const apiKey = settings.accessKey ?? dummyKey;
  snippets = clientSnippets({ baseUrl: clientBase(lastStatus), apiKey, model: snippetModel(lastStatus.models), sdk: lastStatus.sdk });
  const select = byId<HTMLSelectElement>('snippet-select');
  if (select.options.length !== snippets.length) {
    select.replaceChildren(...snippets.map((s) => Object.assign(el('option', s.title), { value: s.id })));
  }
  const current = snippets.find((s) => s.id === select.value) ?? snippets[0];
  setText('snippet-hint', current.hint);
  setText('snippet-text', maskKey(current.text, apiKey));
}

function setupSnippets(): void {
  byId('snippet-select').addEventListener('change', renderSnippets);
  byId('copy-snippet').addEventListener('click', async () => {
    const select = byId<HTMLSelectElement>('snippet-select');
    const snippet = snippets.find((s) => s.id === select.value);
    if (!snippet) return;
    await control.copyText(snippet.text);
    setText('copy-message', 'Copied.');
    setTimeout(() => setText('copy-message', ''), 2000);
  });
}

async function main(): Promise<void> {
  if (!window.control) {
    showFatal('This page must be opened by the Assistant Proxy app (window.control is missing).');
    return;
  }
  control = window.control;
  setupForm();
  setupSnippets();
  byId('open-logs').addEventListener('click', async () => {
    const result = await control.openLogs();
    const button = byId<HTMLButtonElement>('open-logs');
    button.title = result.error ? `${result.error}${result.path ? ` (${result.path})` : ''}` : `Opened ${result.path}`;
    if (result.error) showFatal(`Could not open the log: ${button.title}`);
  });
  byId('toggle').addEventListener('click', async () => {
    const button = byId<HTMLButtonElement>('toggle');
    button.disabled = true;
    render(button.dataset.action === 'stop' ? await control.stop() : await control.start());
  });
  try {
    chart = createChart(byId('chart'));
  } catch (err) {
    // A chart failure must not take the rest of the window with it.
    setText('chart', `Chart unavailable: ${(err as Error).message}`);
  }
  settings = await control.getSettings();
  fillForm(settings);
  control.onStatus?.(render);
  document.body.dataset.ready = 'true';
  await poll();
}

void main();
