// Rendering of status, health, metrics and recent requests: each a function of ControlApi data to the DOM.

import type { ControlStatus, MetricsSummary, RecentRequest, SessionView } from '../proxy/control-api.js';
import { clientBaseUrl } from '../shared/endpoints.js';
import { modeShortLabels } from '../shared/modes.js';
import { byId, el, setText } from './dom.js';
import { formatExpiry, formatMs, formatTime, formatTokens } from './format.js';

const stateText: Record<ControlStatus['state'], string> = {
  running: 'Running',
  starting: 'Starting…',
  stopping: 'Stopping…',
  stopped: 'Stopped',
  error: 'Error',
};

/** The base URL a client on this machine uses; the same function the tray and the proxy use. */
export function clientBase(status: ControlStatus): string {
  return clientBaseUrl(status);
}

/** The pill's colour and words: a proxy that runs but cannot answer chats (no CLI, not logged in, anything in the
 * attention list) is not green "Running". The tray icon follows the same attention list (src/main/tray-model.ts). */
function pillOf(status: ControlStatus): { state: string; text: string } {
  if (status.state !== 'running' || status.attention.length === 0)
    return { state: status.state, text: stateText[status.state] };
  const tool = status.modes.includes('tool');
  // Short: the banner under the top bar says what to do, and a longer pill pushed Stop onto a second line at 800 px.
  if (tool && status.cli.status === 'unhealthy') return { state: 'attention', text: 'Running · no CLI' };
  if (tool && status.auth.status === 'unauthenticated') return { state: 'attention', text: 'Running · no login' };
  return { state: 'attention', text: 'Running · see below' };
}

export function renderStatus(status: ControlStatus, now: number): void {
  const pill = byId('state');
  const shown = pillOf(status);
  pill.dataset.state = shown.state;
  setText('state', shown.text);
  // The top bar names the address only while something answers there (the Connect tab lists every base URL).
  const address = status.state === 'running' ? clientBase(status) : (status.error ?? '');
  setText('address', address);
  // A narrow window cuts the address with an ellipsis (style.css .topbar); the whole of it shows on hover.
  byId('address').title = address;
  byId('copy-address').hidden = status.state !== 'running';
  const toggle = byId<HTMLButtonElement>('toggle');
  const running = status.state === 'running' || status.state === 'stopping';
  toggle.textContent = running ? 'Stop' : 'Start';
  toggle.dataset.action = running ? 'stop' : 'start';
  toggle.disabled = status.state === 'starting' || status.state === 'stopping';

  const cliText: Record<string, string> = {
    healthy: 'Found',
    unhealthy: 'Not found',
    error: 'Check failed',
    unknown: 'Not checked yet',
  };
  // "Not found: CLI not found in PATH" said it twice (and named PATH when a path was set); the Path row says where.
  const cliError = status.cli.error && status.cli.status !== 'unhealthy' ? `: ${status.cli.error}` : '';
  setText('cli-status', `${cliText[status.cli.status] ?? status.cli.status}${cliError}`);
  byId('cli-status').dataset.status = status.cli.status;
  setText(
    'cli-path',
    status.cli.path ??
      (status.cli.searchedPaths.length
        ? `searched ${status.cli.searchedPaths.length} ${status.cli.searchedPaths.length === 1 ? 'place' : 'places'}`
        : '–'),
  );
  setText('cli-version', status.cli.version ?? '–');
  setText('cli-pool', poolText(status));
  setText('cli-live', liveText(status));
  const loginText: Record<string, string> = {
    healthy: 'Yes',
    unauthenticated: 'No: log in with the CLI',
    error: 'Check failed',
    unknown: 'Not checked yet',
  };
  setText('login-status', loginText[status.auth.status] ?? status.auth.status);
  byId('login-status').dataset.status = status.auth.status;
  setText('login-user', [status.auth.user, status.auth.subscription].filter(Boolean).join(' · ') || '–');
  setText('login-expiry', expiryText(status, now));
  setText('uptime', status.uptime ?? '–');
  setText('requests-total', `${status.requestsProcessed} (${status.errors} errors)`);
  setText('version', status.version);
  setText('ollama-status', ollamaText(status));
  byId('ollama-status').dataset.status = status.ollama.state;
}

/** The Ollama listener in words (docs/ollama.md): where it answers, or why it does not. */
export function ollamaText(status: ControlStatus): string {
  const o = status.ollama;
  const mode = o.mode === 'direct' ? 'direct mode' : 'tool mode';
  switch (o.state) {
    case 'off':
      return 'Off';
    case 'listening':
      return `${clientBaseUrl({ host: status.host, port: o.port ?? 0 })} (chats in ${mode})`;
    case 'port-in-use':
      return `Off: port ${o.port} is in use (is Ollama itself running?)`;
    case 'failed':
      return `Off: ${o.message ?? 'could not listen'}`;
  }
}

/** The warm CLI pool in words: how many wait, how many answers they served, their memory (docs/tool-mode.md). */
function poolText(status: ControlStatus): string {
  const pool = status.cliPool;
  if (!pool) return '–';
  if (!pool.enabled) return 'Off (CLI pool size 0)';
  const served = pool.hits + pool.misses;
  const ready =
    pool.warm > 0
      ? `${pool.warm} ready${pool.rssBytes !== undefined ? ` (${Math.round(pool.rssBytes / 2 ** 20)} MB)` : ''}`
      : served === 0
        ? 'Started after the first chat'
        : 'None ready';
  const parts = [ready];
  if (served > 0) parts.push(`${pool.hits}/${served} chats warm`);
  return parts.join(' · ');
}

/** Live conversations in words: how many, in which state, how many turns continued one, their memory. */
function liveText(status: ControlStatus): string {
  const live = status.cliLive;
  if (!live) return '–';
  if (!live.enabled) return 'Off (CLI live max 0)';
  const states = [
    live.busy > 0 ? `${live.busy} answering` : '',
    live.idle > 0 ? `${live.idle} waiting` : '',
    live.waitingForTools > 0 ? `${live.waitingForTools} waiting for tools` : '',
  ]
    .filter(Boolean)
    .join(', ');
  const memory = live.rssBytes !== undefined && live.live > 0 ? ` (${Math.round(live.rssBytes / 2 ** 20)} MB)` : '';
  const parts = [live.live > 0 ? `${live.live} of ${live.max}${memory}: ${states}` : `None (up to ${live.max})`];
  if (live.continued > 0) parts.push(`${live.continued} follow-up turns continued`);
  return parts.join(' · ');
}

/** The login's expiry in words: relative and absolute, or why there is none to show. */
function expiryText(status: ControlStatus, now: number): string {
  // An access token with a refresh token beside it: its end is routine, and the text says so.
  if (status.auth.expires)
    return `${formatExpiry(status.auth.expires, now)} (${new Date(status.auth.expires).toLocaleString()})${status.auth.renews ? '; renews by itself' : ''}`;
  // Logged in but no expiry: the CLI's status did not say and its credential file has none (a keychain login).
  if (status.auth.loggedIn) return 'Not reported by the CLI';
  return '–';
}

/** ISO times inside a message ("expires at 2026-11-23T05:23:35.324Z") in the user's local format. */
function localTimes(text: string): string {
  return text.replace(/\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z\b/g, (iso) => new Date(iso).toLocaleString());
}

/** Rebuilds a banner list only when its items changed (keeps focus on a dismiss button). */
export function renderBanners(status: ControlStatus, onDismiss: (notice: string) => void): void {
  const attention = byId('attention');
  const key = JSON.stringify(status.attention);
  if (attention.dataset.key !== key) {
    attention.dataset.key = key;
    attention.replaceChildren(...status.attention.map((a) => el('li', localTimes(a), 'banner warning')));
  }
  const notices = byId('notices');
  const nkey = JSON.stringify(status.notices);
  if (notices.dataset.key !== nkey) {
    notices.dataset.key = nkey;
    notices.replaceChildren(
      ...status.notices.map((n) => {
        const li = el('li', undefined, 'banner info');
        const dismiss = el('button', 'Dismiss');
        dismiss.type = 'button';
        dismiss.addEventListener('click', () => onDismiss(n));
        li.append(el('span', n), dismiss);
        return li;
      }),
    );
  }
}

export function renderMetrics(m: MetricsSummary, running: boolean): void {
  byId('metrics-stopped').hidden = running;
  setText('m-rpm', String(m.requestsPerMinute));
  setText('m-errors', String(m.errorsTotal));
  setText('m-p50', formatMs(m.latencyP50Ms));
  setText('m-p95', formatMs(m.latencyP95Ms));
  setText('m-ttft', formatMs(m.ttftP50Ms));
  setText('m-inflight', String(m.inFlight));
}

/** Response-API sessions, with a button that ends one (the proxy forgets it; its next request starts afresh). */
export function renderSessions(sessions: SessionView[], onEnd: (id: string) => void): void {
  const body = byId('session-rows');
  const key = sessions.map((s) => `${s.id}:${s.requests}:${s.last_used}`).join(',');
  if (body.dataset.key === key) return;
  body.dataset.key = key;
  body.replaceChildren(
    ...sessions.map((s) => {
      const end = el('button', 'End');
      end.className = 'small';
      end.title = `Forget session ${s.id}`;
      end.addEventListener('click', () => onEnd(s.id));
      const action = el('td');
      action.append(end);
      const tr = el('tr');
      tr.append(
        el('td', s.origin === 'generated' ? `${s.id} (generated)` : s.id, 'mono'),
        el('td', String(s.requests)),
        el('td', formatTime(s.last_used), 'nowrap'),
        el('td', formatTime(s.expires), 'nowrap'),
        action,
      );
      return tr;
    }),
  );
  byId('sessions-empty').hidden = sessions.length > 0;
}

/** "GET /v1/models"; a request that matched no route shows its own path (metrics name those `unmatched`). */
function requestLabel(r: RecentRequest): string {
  const route = r.route === 'unmatched' ? (r.path ?? '(no route)') : r.route;
  return `${r.method} ${route}`;
}

export function renderRequests(records: RecentRequest[]): void {
  const body = byId('requests');
  const key = records.map((r) => r.requestId).join(',');
  if (body.dataset.key === key) return;
  body.dataset.key = key;
  body.replaceChildren(
    ...records.slice(0, 50).map((r) => {
      const tr = el('tr');
      const status = el('td', String(r.status), `nowrap ${r.status >= 400 || r.errorType ? 'bad' : 'ok'}`);
      if (r.errorType) status.title = r.errorType;
      tr.append(
        el('td', formatTime(r.time), 'nowrap'),
        el('td', requestLabel(r), 'mono'),
        el('td', r.mode === 'none' ? '–' : modeShortLabels[r.mode], 'nowrap'),
        el('td', r.model ?? '–'),
        status,
        el('td', formatMs(r.durationMs), 'nowrap num'),
        el('td', formatTokens(r.inputTokens, r.outputTokens), 'nowrap num'),
      );
      return tr;
    }),
  );
  byId('requests-empty').hidden = records.length > 0;
}
