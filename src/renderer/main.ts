// The dashboard page. It knows only ControlApi (window.control, from the preload in the app, or from the test's
// Playwright bridge): it polls status, metrics and recent requests about once a second, and hands the tabs their
// data (settings-view.ts, connect-view.ts, and the panels that poll only while shown).

import type { ControlApi, ControlStatus } from '../proxy/control-api.js';
import { uptimeSeconds } from './chart-data.js';
import { createChart, type Chart } from './chart.js';
import { ConnectPanel } from './connect-view.js';
import { DiagnosePanel } from './diagnose-view.js';
import { HistoryPanel } from './history-view.js';
import { byId, setText } from './dom.js';
import { LogPanel } from './log-view.js';
import { SettingsPanel } from './settings-view.js';
import './style.css';
import { setupTabs } from './tabs.js';
import { UsagePanel } from './usage-view.js';
import { renderBanners, renderMetrics, renderRequests, renderSessions, renderStatus } from './views.js';

type Control = ControlApi & {
  onStatus?(listener: (status: ControlStatus) => void): () => void;
  /** The tray asking for a tab (src/main/ipc.ts ShowPanel). */
  onShow?(listener: (what: { panel: string; run?: boolean }) => void): () => void;
};

declare global {
  interface Window {
    control?: Control;
  }
}

const POLL_MS = 1000;
let control: Control;
let chart: Chart | undefined;
let settingsPanel: SettingsPanel;
let connect: ConnectPanel;
let logPanel: LogPanel;

function showFatal(message: string): void {
  const box = byId('fatal');
  box.textContent = message;
  box.hidden = false;
}

function render(status: ControlStatus): void {
  renderStatus(status, Date.now());
  renderBanners(status, (notice) => void control.dismissNotice(notice).then(render));
  settingsPanel.onStatus(status);
  connect.update(status, undefined);
}

function endSession(id: string): void {
  void control.endSession(id).then((left) => renderSessions(left, endSession));
}

async function poll(): Promise<void> {
  try {
    const [status, metrics, recent, sessions] = await Promise.all([
      control.getStatus(),
      control.getMetrics(),
      control.getRecentRequests(),
      control.getSessions(),
    ]);
    render(status);
    renderMetrics(metrics, status.state === 'running');
    chart?.update(metrics.series, uptimeSeconds(status.uptime));
    renderRequests(recent);
    renderSessions(sessions, endSession);
    await logPanel.poll();
    byId('fatal').hidden = true;
  } catch (err) {
    showFatal(`Lost contact with the app: ${(err as Error).message}`);
  } finally {
    setTimeout(() => void poll(), POLL_MS);
  }
}

async function main(): Promise<void> {
  if (!window.control) {
    showFatal('This page must be opened by the Assistant Proxy app (window.control is missing).');
    return;
  }
  control = window.control;
  connect = new ConnectPanel(control);
  connect.setup();
  settingsPanel = new SettingsPanel({ control, render, onSettings: (s) => connect.update(undefined, s) });
  settingsPanel.setup();
  const usage = new UsagePanel(control);
  usage.setup();
  const history = new HistoryPanel(control);
  history.setup();
  // The Usage tab loads when shown and refreshes every 10 s while it stays shown.
  let usageTimer: ReturnType<typeof setInterval> | undefined;
  const selectTab = setupTabs((panel) => {
    clearInterval(usageTimer);
    if (panel !== 'panel-usage') return;
    void usage.refresh();
    void history.refresh();
    usageTimer = setInterval(() => void usage.refresh(), 10_000);
  });
  const openLogs = async () => {
    const result = await control.openLogs();
    const where = result.error ? `${result.error}${result.path ? ` (${result.path})` : ''}` : `Opened ${result.path}`;
    byId<HTMLButtonElement>('open-logs').title = where;
    if (result.error) showFatal(`Could not open the log: ${where}`);
  };
  byId('open-logs').addEventListener('click', () => void openLogs());
  logPanel = new LogPanel(control);
  logPanel.setup(() => void openLogs());
  const diagnose = new DiagnosePanel(control);
  diagnose.setup();
  control.onShow?.((what) => {
    selectTab(`panel-${what.panel}`);
    if (what.panel === 'diagnose' && what.run) void diagnose.run();
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
  await settingsPanel.load();
  control.onStatus?.(render);
  document.body.dataset.ready = 'true';
  await poll();
}

void main();
