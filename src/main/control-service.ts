// ControlApi implemented over a ProxyController. Plain Node (no electron import): the main process hands it the
// clipboard and the file picker, and the browser tests use the very same object behind Playwright's bridge, so
// what the window is tested against is what the app runs.

import type { Settings } from '../proxy/config.js';
import type {
  ControlApi,
  ControlStatus,
  CsvExport,
  DiagnoseResult,
  LogView,
  RecentRequest,
  RequestRecord,
  SettingsResult,
} from '../proxy/control-api.js';
import type { ProxyController } from '../proxy/controller.js';
import { runDiagnose } from '../proxy/diagnose/index.js';
import type { LogTap } from '../proxy/logger.js';
import { clientBaseUrl } from '../shared/endpoints.js';
import { usageCsv } from './usage-csv.js';
import type { UsageReader } from './usage-reader.js';

export interface ControlServiceDeps {
  copyText(text: string): void | Promise<void>;
  pickCliPath(): Promise<string | undefined>;
  /** Where the app writes its log, and how to show it (shell.openPath); absent where logs go to a terminal. */
  logPath?: string;
  openPath?(path: string): Promise<string>;
  /** The logger's tap (createLogger(level, destination, tap)), for the live log. */
  logTap?: LogTap;
  /** The usage ledger, when one runs (usage-reader.ts). */
  usage?: UsageReader;
  /** Asks where to save a CSV (a save dialog); resolves the path written, or undefined when cancelled. */
  saveCsv?(suggestedName: string, csv: string): Promise<string | undefined>;
  /** Runs diagnose; default: runDiagnose over the controller's settings, through the running proxy's URL. */
  diagnose?(): Promise<DiagnoseResult>;
}

/** Longest history an export reads (rows), so one click cannot build an unbounded string. */
const CSV_MAX_ROWS = 200_000;

/** Keys the window may change; anything else in a patch is refused (the renderer is not trusted with paths it did not pick). */
const windowSettingKeys = [
  'port',
  'host',
  'accessKey',
  'corsOrigins',
  'modes',
  'rateLimitPerMinute',
  'rateLimitBurst',
  'metricsEnabled',
  'logLevel',
  'cliPath',
  // The Ollama listener (docs/ollama.md): its port (cleared: off) and the mode of its chats.
  'ollamaPort',
  'ollamaMode',
  'quotaAlerts',
] as const;

function emptyMetrics(): Awaited<ReturnType<ControlApi['getMetrics']>> {
  return {
    requestsTotal: 0,
    errorsTotal: 0,
    inFlight: 0,
    requestsPerMinute: 0,
    latencyP50Ms: null,
    latencyP95Ms: null,
    ttftP50Ms: null,
    series: [],
  };
}

/**
 * The metrics name a request that matched no route `unmatched`; the window shows its path instead, taken from
 * the request's log line (the logger's tap holds it, keyed by request id) or from the usage ledger.
 */
async function withPaths(records: RequestRecord[], deps: ControlServiceDeps): Promise<RecentRequest[]> {
  const unmatched = records.filter((r) => r.route === 'unmatched');
  if (unmatched.length === 0) return records;
  const paths = new Map<string, string>();
  const wanted = new Set(unmatched.map((r) => r.requestId));
  for (const line of deps.logTap?.since(0).lines ?? []) {
    if (line.msg !== 'request' || !line.line.includes('"unmatched"')) continue;
    try {
      const parsed = JSON.parse(line.line) as { requestId?: unknown; path?: unknown };
      if (typeof parsed.requestId === 'string' && typeof parsed.path === 'string' && wanted.has(parsed.requestId))
        paths.set(parsed.requestId, parsed.path);
    } catch {
      /* a line that is not JSON has no path to give */
    }
  }
  for (const r of unmatched) {
    if (paths.has(r.requestId) || !deps.usage) continue;
    const row = await deps.usage.request(r.requestId);
    if (row) paths.set(r.requestId, row.record.route);
  }
  return records.map((r) => (paths.has(r.requestId) ? { ...r, path: paths.get(r.requestId) } : r));
}

export function createControlService(controller: ProxyController, deps: ControlServiceDeps): ControlApi {
  const startSafely = async (): Promise<ControlStatus> => {
    // A failed start (port taken) is a state the window shows, not an exception across IPC.
    try {
      return await controller.start();
    } catch {
      return controller.status();
    }
  };
  const ledger = (): UsageReader => {
    if (!deps.usage) throw new Error('The usage ledger is not running, so there is no usage history to show');
    return deps.usage;
  };
  const times = (from: unknown, to: unknown): [number, number] => {
    const f = Number(from);
    const t = Number(to);
    if (!Number.isFinite(f) || !Number.isFinite(t) || f > t)
      throw new TypeError('from and to must be times in ms, from <= to');
    return [f, t];
  };
  const diagnose = async (): Promise<DiagnoseResult> => {
    if (deps.diagnose) return deps.diagnose();
    const status = controller.status();
    const config = controller.getConfig();
    // Through the running proxy when there is one: the requests then see exactly what clients see.
    // With the running proxy's key (the owner's key, or PROXY_ACCESS_KEY), so that REQUIRE_ACCESS_KEY lets it through.
    const running = status.state === 'running';
    return runDiagnose(config, {
      proxyUrl: running ? clientBaseUrl(status) : undefined,
      accessKey: running ? controller.current()?.ownerKey : undefined,
    });
  };
  return {
    getStatus: async () => controller.status(),
    getSettings: async () => controller.getSettings(),
    updateSettings: async (patch): Promise<SettingsResult> => {
      if (typeof patch !== 'object' || patch === null || Array.isArray(patch))
        return { ok: false, message: 'Settings must be an object', status: controller.status() };
      const unknown = Object.keys(patch).filter((k) => !(windowSettingKeys as readonly string[]).includes(k));
      if (unknown.length > 0) {
        const message = `These settings cannot be changed from the window: ${unknown.join(', ')}`;
        return {
          ok: false,
          message,
          errors: Object.fromEntries(unknown.map((k) => [k, message])),
          status: controller.status(),
        };
      }
      return controller.updateSettings(patch as Settings);
    },
    start: startSafely,
    stop: () => controller.stop(),
    getMetrics: async () => controller.metrics() ?? emptyMetrics(),
    getRecentRequests: async () => withPaths(controller.recentRequests(), deps),
    getSessions: async () => controller.sessions(),
    endSession: async (id) => controller.endSession(String(id)),
    checkPort: async (port) => {
      if (!Number.isInteger(port) || port < 1 || port > 65535)
        return { free: false, message: 'Choose a port from 1 to 65535' };
      return controller.checkPort(port);
    },
    copyText: async (text) => {
      if (typeof text !== 'string') throw new TypeError('copyText needs a string');
      await deps.copyText(text);
    },
    pickCliPath: () => deps.pickCliPath(),
    dismissNotice: async (notice) => controller.dismissNotice(String(notice)),
    getLogs: async (sinceSeq): Promise<LogView> => {
      const level = controller.getConfig().logLevel;
      const page = deps.logTap?.since(Number(sinceSeq) || 0, 500) ?? { lines: [], nextSeq: 0, missed: 0 };
      return { ...page, level };
    },
    diagnose,
    getUsageSummary: async (from, to, by) => {
      const [f, t] = times(from, to);
      if (!['day', 'model', 'mode', 'client', 'lane'].includes(by))
        throw new TypeError('by must be day, model, mode, client or lane');
      return ledger().summary(f, t, by);
    },
    getUsageRequests: async (query) => ledger().requests(typeof query === 'object' && query !== null ? query : {}),
    getUsageRequest: async (requestId) => ledger().request(String(requestId)),
    getLimits: async () => (deps.usage ? deps.usage.quotaWindows() : []),
    exportUsageCsv: async (from, to): Promise<CsvExport> => {
      const [f, t] = times(from, to);
      const rows = [];
      let before: number | undefined = t + 1;
      while (before !== undefined && rows.length < CSV_MAX_ROWS) {
        const page = await ledger().requests({ before, limit: 1000 });
        rows.push(...page.rows.filter((r) => r.startedAt >= f && r.startedAt <= t));
        before = page.rows.length > 0 && page.rows[page.rows.length - 1].startedAt >= f ? page.nextBefore : undefined;
      }
      rows.sort((a, b) => a.startedAt - b.startedAt);
      const csv = usageCsv(rows);
      if (!deps.saveCsv) return { rows: rows.length, csv };
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      try {
        const path = await deps.saveCsv(`assistant-proxy-usage-${day(f)}-to-${day(t)}.csv`, csv);
        return path ? { rows: rows.length, path } : { rows: rows.length };
      } catch (err) {
        return { rows: rows.length, error: `Could not save the file: ${(err as Error).message}` };
      }
    },
    openLogs: async () => {
      if (!deps.logPath || !deps.openPath) return { error: 'This proxy logs to its terminal (started headless)' };
      // shell.openPath answers an error text, or '' on success.
      const failure = await deps.openPath(deps.logPath);
      return failure ? { path: deps.logPath, error: failure } : { path: deps.logPath };
    },
  };
}
