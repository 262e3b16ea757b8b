// The interface between the desktop window and the proxy
// (docs/architecture.md "Layers, and the one rule between them"). Types only: the renderer may `import type` from this
// file and nothing else from src/proxy. src/main implements it over IPC by calling a ProxyController.

import type { Config } from './config.js';
import type { DiagnoseReport } from './diagnose/types.js';
import type { LogLevelName, LogLine, LogPage } from './logger.js';
import type { MetricsSummary, RequestRecord } from './metrics.js';
import type { SessionView } from './respapi/session-registry.js';
import type {
  CapturedBodies,
  Outcome,
  QuotaWindow,
  RequestPage,
  RequestQuery,
  SummaryBy,
  SummaryRow,
  UsageRecord,
  UsageSummary,
} from './usage/types.js';

type ServerState = 'starting' | 'running' | 'stopping' | 'stopped' | 'error';

export interface ControlStatus {
  state: ServerState;
  host: string;
  port: number;
  /** Set when state is error (e.g. "Port 8000 already in use ..."). */
  error?: string;
  /** Attention items for the tray and window: CLI missing, logged out, token expiring. */
  attention: string[];
  modes: Config['modes'];
  version: string;
  cli: { status: string; path?: string; version?: string; searchedPaths: string[]; error?: string };
  /** The warm CLI pool of tool mode (CLI_POOL_SIZE; docs/tool-mode.md): absent while the proxy is not running. */
  cliPool?: { enabled: boolean; size: number; warm: number; hits: number; misses: number; rssBytes?: number };
  /** Live conversations of tool mode (CLI_LIVE_MAX; docs/tool-mode.md): absent while the proxy is not running. */
  cliLive?: {
    enabled: boolean;
    max: number;
    live: number;
    busy: number;
    idle: number;
    waitingForTools: number;
    continued: number;
    rssBytes?: number;
  };
  /** `renews`: `expires` is an access token's that renews by itself (src/proxy/health/cli-probe.ts), not a login's end. */
  auth: { status: string; loggedIn: boolean; user?: string; subscription?: string; expires?: string; renews?: boolean };
  uptime?: string;
  requestsProcessed: number;
  errors: number;
  /** Informational messages for the window (e.g. "stored settings were unreadable; defaults in use"). */
  notices: string[];
  /** Public model ids, for the copy-ready client snippets: the catalog's, newest first, then the rm- ids. */
  models: string[];
  /**
   * The Ollama listener (docs/ollama.md): off, listening (its port), or its port taken (a real Ollama running) with
   * the one line that says so; `mode` answers its chats.
   */
  ollama: {
    state: 'off' | 'listening' | 'port-in-use' | 'failed';
    port?: number;
    message?: string;
    mode: 'tool' | 'direct';
  };
  /** The catalog's models with their context length when known, and the deprecated ones' replacement and end of life
   * as the provider announced them (docs/configuration.md "Models"). */
  modelDetails?: Array<{
    id: string;
    contextLength?: number;
    /** The largest max_tokens and what the model takes, as the catalog says (docs/models.md). */
    maxTokens?: number;
    capabilities?: {
      thinking: Array<'adaptive' | 'enabled'>;
      efforts: string[];
      structuredOutputs: boolean;
    };
    deprecated?: { replacement: string; endOfLife?: string };
  }>;
  /** The mid-priced model snippets default to (the newest of its family), not the most expensive one. */
  defaultModel?: string;
  /** Which catalog is listed: the provider's (live), its cached copy, or the built-in fallback; and when read. */
  modelCatalog?: { source: string; readAt?: string };
  /** The provider's official client library names, for the native SDK snippet. */
  sdk: { providerName: string; jsPackage: string; jsClass: string; pyPackage: string; pyClass: string };
}

export type SettingsView = Config;

export interface SettingsResult {
  ok: boolean;
  /** Per-setting messages, keyed by setting name, for inline display. */
  errors?: Record<string, string>;
  /** A message that is not tied to one field (e.g. the new port is in use and the old one was kept). */
  message?: string;
  status?: ControlStatus;
}

export interface ControlApi {
  getStatus(): Promise<ControlStatus>;
  getSettings(): Promise<SettingsView>;
  /** Validates, persists and applies settings, restarting the server when needed. */
  updateSettings(patch: Partial<SettingsView>): Promise<SettingsResult>;
  start(): Promise<ControlStatus>;
  stop(): Promise<ControlStatus>;
  getMetrics(): Promise<MetricsSummary>;
  getRecentRequests(): Promise<RecentRequest[]>;
  /** Response-API sessions the proxy has seen and not yet expired, most recently used first. */
  getSessions(): Promise<SessionView[]>;
  /** Forgets one response-API session (its next request starts a new one); returns the remaining list. */
  endSession(id: string): Promise<SessionView[]>;
  /** Opens the app's log file in the system's viewer; says where it is, or why it cannot be opened. */
  openLogs(): Promise<{ path?: string; error?: string }>;
  /** Checks whether a port can be bound on the configured host right now. */
  checkPort(port: number): Promise<{ free: boolean; message?: string }>;
  /** Copies text to the clipboard (the main process owns the clipboard). */
  copyText(text: string): Promise<void>;
  /** Opens a file picker for the CLI path; resolves undefined when cancelled. */
  pickCliPath(): Promise<string | undefined>;
  /** Removes a notice once the user has read it. */
  dismissNotice(notice: string): Promise<ControlStatus>;
  /** The live log: structured lines (already redacted) after `sinceSeq` (0: all still held), and the level in force. */
  getLogs(sinceSeq: number): Promise<LogView>;
  /** Runs every check of the enabled modes (src/proxy/diagnose); the text is what `--diagnose` prints. */
  diagnose(): Promise<DiagnoseResult>;
  /** Requests, errors and tokens between two times (ms), grouped by day, model, mode or client. Throws when no ledger runs. */
  getUsageSummary(from: number, to: number, by: SummaryBy): Promise<UsageSummary>;
  /** A page of the request history, newest first, with the filters of RequestQuery. */
  getUsageRequests(query: RequestQuery): Promise<RequestPage>;
  /** One request for the inspector; bodies only where capture is on. */
  getUsageRequest(requestId: string): Promise<UsageDetail | undefined>;
  /** The latest observation of each subscription quota window; empty when no answer has reported one yet. */
  getLimits(): Promise<QuotaWindow[]>;
  /** The history between two times as CSV: saved where the user chooses (path), or returned as text. */
  exportUsageCsv(from: number, to: number): Promise<CsvExport>;
}

/** A recent request; `path` is the request's own path when it matched no route (the record says `unmatched`). */
export type RecentRequest = RequestRecord & { path?: string };

export interface LogView extends LogPage {
  /** The log level in force ("silent" means nothing will show). */
  level: string;
}

export interface DiagnoseResult {
  report: DiagnoseReport;
  text: string;
  ok: boolean;
}

export interface UsageDetail {
  record: UsageRecord;
  /** Present only when body capture was on for this request. */
  bodies?: CapturedBodies;
}

export interface CsvExport {
  rows: number;
  /** Where it was saved; absent when the user cancelled or no file dialog exists (then `csv` holds the text). */
  path?: string;
  csv?: string;
  error?: string;
}

export type { MetricsSummary, RequestRecord, SessionView };
export type { LogLevelName, LogLine, LogPage };
export type { DiagnoseReport };
export type {
  CapturedBodies,
  Outcome,
  QuotaWindow,
  RequestPage,
  RequestQuery,
  SummaryBy,
  SummaryRow,
  UsageRecord,
  UsageSummary,
};
