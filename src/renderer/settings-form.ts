// The settings form as data: settings -> form values -> a patch of only what changed, with the checks that
// need no server (a whole number, at least one mode, origins when CORS is on). Range checks and everything
// else come back from the proxy's own schema through updateSettings, so the window never disagrees with it.

import type { SettingsView } from '../proxy/control-api.js';
import { isLoopbackHost } from '../shared/endpoints.js';
import { laneAlertKinds } from '../shared/lane-alerts.js';
import { modeNames, type ModeName } from '../shared/modes.js';

type LogLevel = SettingsView['logLevel'];

export const allModes: readonly ModeName[] = modeNames;
export const logLevels: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
export const portRangeMessage = 'Choose a port from 1 to 65535';
const lanHost = '0.0.0.0';
const loopbackHost = '127.0.0.1';

export interface FormValues {
  port: string;
  network: 'loopback' | 'lan';
  accessKey: string;
  corsOn: boolean;
  corsOrigins: string;
  modes: ModeName[];
  rateLimitPerMinute: string;
  rateLimitBurst: string;
  metricsEnabled: boolean;
  logLevel: LogLevel;
  cliPath: string;
  /** The Ollama listener (docs/ollama.md): on with a port, and which mode answers its chats. */
  ollamaOn: boolean;
  ollamaPort: string;
  ollamaMode: SettingsView['ollamaMode'];
  /** The alerts that are on (docs/usage.md "Alerts"). */
  quotaAlerts: SettingsView['quotaAlerts'];
}

/** Ollama's own port: what IDE plugins try first. */
const ollamaDefaultPort = 11434;

/** The alert kinds, in the order the form lists them. */
export const alertKinds: SettingsView['quotaAlerts'] = [...laneAlertKinds];

type SettingsPatch = Partial<SettingsView>;

/** localhost, 127.0.0.0/8 or ::1: the proxy's own test (src/shared/endpoints.ts). */
const isLoopback = isLoopbackHost;

export function valuesFromSettings(s: SettingsView): FormValues {
  return {
    port: String(s.port),
    network: isLoopback(s.host) ? 'loopback' : 'lan',
    accessKey: s.accessKey ?? '',
    corsOn: s.corsOrigins.length > 0,
    corsOrigins: s.corsOrigins.join('\n'),
    modes: [...s.modes],
    rateLimitPerMinute: String(s.rateLimitPerMinute),
    rateLimitBurst: String(s.rateLimitBurst),
    metricsEnabled: s.metricsEnabled,
    logLevel: s.logLevel,
    cliPath: s.cliPath ?? '',
    ollamaOn: s.ollamaPort !== undefined,
    ollamaPort: String(s.ollamaPort ?? ollamaDefaultPort),
    ollamaMode: s.ollamaMode,
    quotaAlerts: [...(s.quotaAlerts ?? alertKinds)],
  };
}

function wholeNumber(text: string): number | undefined {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : undefined;
}

/** A patch with only the changed settings, or the field errors that stop it from being sent. */
export function patchFromValues(
  v: FormValues,
  current: SettingsView,
): { patch: SettingsPatch; errors: Record<string, string> } {
  const errors: Record<string, string> = {};
  const next: SettingsPatch = {};

  // One wording for the port everywhere in the window (the live check says the same): the window offers 1 to
  // 65535; 0 ("any free port") stays a command-line setting, and a stored 0 is kept while unchanged.
  const port = wholeNumber(v.port);
  if (port === undefined || ((port < 1 || port > 65535) && port !== current.port)) errors.port = portRangeMessage;
  else next.port = port;

  const currentIsLoopback = isLoopback(current.host);
  // Keep a custom host (set in the file or by flag) unless the user switched between loopback and LAN.
  if ((v.network === 'loopback') !== currentIsLoopback) next.host = v.network === 'lan' ? lanHost : loopbackHost;
  next.accessKey = v.accessKey.trim() === '' ? undefined : v.accessKey.trim();

  if (v.corsOn) {
    const origins = v.corsOrigins
      .split(/[\s,]+/)
      .map((o) => o.trim())
      .filter(Boolean);
    if (origins.length === 0)
      errors.corsOrigins = 'Add at least one origin, such as http://localhost:3000, or turn CORS off';
    next.corsOrigins = origins;
  } else {
    next.corsOrigins = [];
  }

  if (v.modes.length === 0) errors.modes = 'Turn on at least one mode: with none, every chat request is refused';
  next.modes = allModes.filter((m) => v.modes.includes(m));

  for (const key of ['rateLimitPerMinute', 'rateLimitBurst'] as const) {
    const n = wholeNumber(v[key]);
    if (n === undefined) errors[key] = 'Enter a whole number';
    else next[key] = n;
  }
  next.metricsEnabled = v.metricsEnabled;
  next.logLevel = v.logLevel;
  next.cliPath = v.cliPath.trim() === '' ? undefined : v.cliPath.trim();
  next.quotaAlerts = alertKinds.filter((k) => v.quotaAlerts.includes(k));

  if (v.ollamaOn) {
    const ollamaPort = wholeNumber(v.ollamaPort);
    // As for the main port, a stored 0 (any free port, from the command line) is kept while unchanged.
    if (ollamaPort === undefined || ((ollamaPort < 1 || ollamaPort > 65535) && ollamaPort !== current.ollamaPort))
      errors.ollamaPort = portRangeMessage;
    else if (ollamaPort === (port ?? current.port))
      errors.ollamaPort = "Choose a port other than the proxy's own, such as 11434";
    else next.ollamaPort = ollamaPort;
  } else {
    next.ollamaPort = undefined;
  }
  next.ollamaMode = v.ollamaMode;

  const patch: SettingsPatch = {};
  for (const [key, value] of Object.entries(next) as Array<[keyof SettingsView, unknown]>) {
    if (JSON.stringify(value) !== JSON.stringify(current[key])) {
      // '' clears an optional setting (undefined does not survive every IPC bridge).
      (patch as Record<string, unknown>)[key] = value === undefined ? '' : value;
    }
  }
  return { patch, errors };
}

/** A random access key (24 bytes, URL-safe) from the page's CSPRNG. */
export function generateAccessKey(
  random: (bytes: Uint8Array) => Uint8Array = (b) => crypto.getRandomValues(b),
): string {
  const bytes = random(new Uint8Array(24));
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
