// Every setting of the proxy, declared once (docs/configuration.md "Settings"): its key (the settings file's and the
// desktop store's name), environment variable, command-line flag, zod type with bounds and default, the one line
// `--help` prints, the docs' longer text where it says more, and the group `--help` lists it under. The schema
// (schema.ts), the environment and flag readers (config.ts), `--help` and the docs' table (render.ts) all come from
// this object, so a setting added here is in each of them and in the `Config` type; nothing else lists settings.
// The order is the docs' table's.

import { z } from 'zod';
import { modeNames } from '../../shared/modes.js';
import type { Profile } from '../profile.js';
import { laneAlertKinds } from '../../shared/lane-alerts.js';
import { dataDir } from './data-dir.js';
import type { SettingDeclaration } from './declaration.js';

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const url = z.string().url();
const text = z.string().min(1);
const names = z.array(z.string().min(1));
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const fromProfile = '`from the provider profile`';

export const settingTable = {
  port: {
    group: 'server',
    env: 'PORT',
    flag: '--port',
    type: int(0, 65535).default(8000),
    help: 'listening port (0 = any free port)',
  },
  host: {
    group: 'server',
    env: 'HOST',
    flag: '--host',
    type: text.default('127.0.0.1'),
    help: 'bind address; non-loopback needs PROXY_ACCESS_KEY',
  },
  logLevel: {
    group: 'server',
    env: 'LOG_LEVEL',
    flag: '--log-level',
    type: z.enum(logLevels).default('info'),
    help: logLevels.join(', '),
  },
  corsOrigins: {
    group: 'server',
    env: 'CORS_ORIGINS',
    flag: '--cors-origins',
    type: z.array(z.string().url()).default([]),
    help: 'comma list of allowed browser origins; empty = CORS off',
  },
  allowedHosts: {
    group: 'server',
    env: 'ALLOWED_HOSTS',
    flag: '--allowed-hosts',
    type: names.default([]),
    help: 'extra Host header names accepted while bound to loopback',
  },
  accessKey: {
    group: 'server',
    env: 'PROXY_ACCESS_KEY',
    type: z.string().min(16).optional(),
    help: 'when set, every client must present it, on loopback too (16+ chars); required beyond loopback',
    docs: "when set, every client must present it, on loopback too (16+ chars); required beyond loopback; replaces the owner's key",
  },
  requireAccessKey: {
    group: 'server',
    env: 'REQUIRE_ACCESS_KEY',
    type: z.boolean().default(false),
    help: "every client must present the owner's key (the file owner-key in the data directory, or PROXY_ACCESS_KEY), chats included; default: only the owner's data needs it",
    docs: "every client must present the owner's key (`<DATA_DIR>/owner-key`, or `PROXY_ACCESS_KEY`), chats included; off, only the owner's data needs it ([security.md](security.md) \"The owner's key and the access key\")",
  },
  metricsEnabled: {
    group: 'server',
    env: 'METRICS_ENABLED',
    flag: '--metrics',
    type: z.boolean().default(true),
    help: 'serve /metrics',
  },
  rateLimitPerMinute: {
    group: 'limits',
    env: 'RATE_LIMIT_PER_MINUTE',
    type: int(1, 1_000_000).default(60),
    help: 'requests per minute per client IP; every loopback address counts as one client',
  },
  rateLimitBurst: {
    group: 'limits',
    env: 'RATE_LIMIT_BURST',
    type: int(0, 1_000_000).default(10),
    help: 'extra requests allowed above the per-minute rate',
  },
  maxConnections: {
    group: 'limits',
    env: 'MAX_CONNECTIONS',
    type: int(1, 1_000_000).default(1024),
    help: 'open connections at once; more are closed on arrival',
  },
  maxConnectionsPerClient: {
    group: 'limits',
    env: 'MAX_CONNECTIONS_PER_CLIENT',
    type: int(1, 1_000_000).default(768),
    help: 'open connections at once from one client address',
  },
  bodyLimitBytes: {
    group: 'limits',
    env: 'BODY_LIMIT_BYTES',
    type: int(1024, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
    help: 'largest accepted request body',
  },
  modes: {
    group: 'server',
    env: 'MODES',
    flag: '--modes',
    type: z.array(z.enum(modeNames)).default([...modeNames]),
    help: `modes that are on: ${modeNames.join(', ')}`,
  },
  cliPath: {
    group: 'cli',
    env: 'ASSISTANT_CLI_PATH',
    flag: '--cli-path',
    type: text.optional(),
    help: 'the assistant CLI executable',
    shownDefault: 'searched on PATH',
    docsDefault: 'searched on `PATH`',
  },
  cliWorkDir: {
    group: 'cli',
    env: 'CLI_WORKDIR',
    // Unset: `cli-workdir` inside the data directory, whichever that is (validateSettings fills it in), so that
    // DATA_DIR moves everything the proxy keeps.
    type: text.optional(),
    help: 'working directory of CLI children, created empty and owner-only',
    docs: 'working directory of CLI children, created empty and owner-only; it follows `DATA_DIR` unless set',
    shownDefault: 'DATA_DIR/cli-workdir',
  },
  cliAllowedTools: {
    group: 'cli',
    env: 'CLI_ALLOWED_TOOLS',
    type: names.default([]),
    help: "tools the CLI may use without asking (none: the CLI's own rules apply)",
    docs: "tools the CLI may use without asking (default: none; the CLI's own rules apply). A bare file tool (`Read`, `Edit`, …) is confined to `CLI_WORKDIR`, the owner's secrets are always denied, and tool-mode chats then need the access key ([security.md](security.md) \"The CLI's own tools\")",
  },
  cliDisallowedTools: {
    group: 'cli',
    env: 'CLI_DISALLOWED_TOOLS',
    type: names.default([]),
    help: 'tools the CLI may never use',
  },
  cliUnconfinedShell: {
    group: 'cli',
    env: 'CLI_UNCONFINED_SHELL',
    type: z.boolean().default(false),
    help: 'let CLI_ALLOWED_TOOLS offer Bash: it runs any command as you, past every file rule (default false)',
    docs: 'let `CLI_ALLOWED_TOOLS` offer `Bash` (and the other command-running tools): a shell runs any command as you, past every file rule; off, such rules are left out with a warning at start-up',
  },
  cliMaxRetries: {
    group: 'cli',
    env: 'CLI_MAX_RETRIES',
    type: int(0, 10).default(2),
    help: "bound on the CLI's own retries of failed provider calls",
  },
  // Two bounds in one setting (docs/tool-mode.md "Live conversations"), both read in modes/tool/engine/engine.ts: the CLI
  // turns running at once (the child slots, with CLI_LIVE_MAX too when it is on) and the processes parked waiting
  // for a client's tool results (the registry ends the oldest past it).
  cliMaxConcurrent: {
    group: 'cli',
    env: 'CLI_MAX_CONCURRENT',
    type: int(1, 256).default(4),
    help: "CLI turns running at once (CLI_LIVE_MAX bounds them too when on), and CLI processes waiting for a client's tool results (past it the oldest ends)",
    docs: 'CLI turns running at once (`CLI_LIVE_MAX` bounds them too when on), and CLI processes waiting for a client\'s tool results (past it the oldest ends; [tool-mode.md](tool-mode.md) "Live conversations")',
  },
  cliQueueSize: {
    group: 'cli',
    env: 'CLI_QUEUE_SIZE',
    type: int(0, 10_000).default(16),
    help: 'requests waiting for a CLI slot before 429',
  },
  cliFirstTokenTimeoutMs: {
    group: 'cli',
    env: 'CLI_FIRST_TOKEN_TIMEOUT_MS',
    type: int(100, 3_600_000).default(60_000),
    help: 'deadline for the CLI to start answering',
  },
  cliToolResultTimeoutMs: {
    group: 'cli',
    env: 'CLI_TOOL_RESULT_TIMEOUT_MS',
    type: int(1000, 24 * 3_600_000).default(300_000),
    help: "how long a CLI waits for the client's tool results before it ends",
  },
  requestTimeoutMs: {
    group: 'limits',
    env: 'REQUEST_TIMEOUT_MS',
    type: int(100, 3_600_000).default(600_000),
    help: 'deadline for a whole chat request',
  },
  cliUserSetup: {
    group: 'cli',
    env: 'CLI_USER_SETUP',
    type: z.boolean().default(false),
    help: "CLI children load the user's own CLI set-up (hooks, memory file, MCP servers, transcripts); costs tokens and time on every chat",
    docs: 'CLI children load the user\'s own CLI set-up (hooks, memory file, MCP servers, transcripts); costs tokens and time on every chat ([tool-mode.md](tool-mode.md) "Isolation")',
  },
  cliLiveMax: {
    group: 'cli',
    env: 'CLI_LIVE_MAX',
    type: int(0, 256).default(4),
    help: 'live conversations (CLI processes kept after their turn for a follow-up) at most; 0 = off',
  },
  cliLiveIdleMs: {
    group: 'cli',
    env: 'CLI_LIVE_IDLE_MS',
    type: int(1000, 24 * 3_600_000).default(600_000),
    help: 'how long a live conversation waits for its next turn',
  },
  cliLiveMaxMb: {
    group: 'cli',
    env: 'CLI_LIVE_MAX_MB',
    type: int(16, 1_000_000).default(2048),
    help: 'memory cap of live and warm CLI processes together, MB',
  },
  cliPoolSize: {
    group: 'cli',
    env: 'CLI_POOL_SIZE',
    type: int(0, 32).default(1),
    help: 'warm CLI processes kept ready in tool mode (0 = off)',
  },
  cliPoolIdleMs: {
    group: 'cli',
    env: 'CLI_POOL_IDLE_MS',
    type: int(1000, 24 * 3_600_000).default(300_000),
    help: 'how long a warm CLI process may wait unused',
  },
  apiBaseUrl: {
    group: 'upstream',
    env: 'ASSISTANT_API_BASE_URL',
    type: (profile: Profile) => url.default(profile.api.baseUrl),
    help: "the provider's native API base",
    docsDefault: fromProfile,
  },
  credentialsPath: {
    group: 'upstream',
    env: 'ASSISTANT_CREDENTIALS_PATH',
    type: (profile: Profile) => text.default(profile.credentials.path),
    help: "the CLI's OAuth credential file",
    docsDefault: fromProfile,
  },
  oauthTokenUrl: {
    group: 'upstream',
    env: 'ASSISTANT_OAUTH_TOKEN_URL',
    type: (profile: Profile) => url.default(profile.credentials.tokenUrl),
    help: 'token endpoint for refreshing that credential',
    docsDefault: fromProfile,
  },
  upstreamConnectTimeoutMs: {
    group: 'upstream',
    env: 'UPSTREAM_CONNECT_TIMEOUT_MS',
    type: int(100, 600_000).default(10_000),
    help: 'direct/response-API connect deadline',
  },
  upstreamFirstByteTimeoutMs: {
    group: 'upstream',
    env: 'UPSTREAM_FIRST_BYTE_TIMEOUT_MS',
    type: int(100, 3_600_000).default(120_000),
    help: 'deadline for the upstream to start answering',
  },
  upstreamIdleTimeoutMs: {
    group: 'upstream',
    env: 'UPSTREAM_IDLE_TIMEOUT_MS',
    type: int(100, 3_600_000).default(120_000),
    help: 'longest silence inside an upstream stream',
  },
  directPromptCache: {
    group: 'upstream',
    env: 'DIRECT_PROMPT_CACHE',
    type: z.enum(['on', '1h', 'off']).default('on'),
    help: "direct mode's prompt-cache marks on translated chats: on (5-minute lifetime), 1h, or off",
    docs: "direct mode's prompt-cache marks on the compatible, Responses and Ollama chats ([direct-mode.md](direct-mode.md#the-prompt-cache)): `on` (a 5-minute lifetime; a write costs 1.25× plain input, a read 0.1×), `1h` (for clients that pause longer than 5 minutes between turns; a write costs 2×), `off` (only the client's own marks). The native `/api/v1/messages` route always sends the client's request as it is",
  },
  respapiBaseUrl: {
    group: 'upstream',
    env: 'RESPAPI_BASE_URL',
    type: (profile: Profile) => url.default(profile.respapi.baseUrl),
    help: 'the response API base',
    docsDefault: fromProfile,
  },
  respapiCredentialsPath: {
    group: 'upstream',
    env: 'RESPAPI_CREDENTIALS_PATH',
    type: (profile: Profile) => text.default(profile.respapi.credentialsPath),
    help: "the response API's OAuth2 credential file",
    docsDefault: fromProfile,
  },
  respapiOauthTokenUrl: {
    group: 'upstream',
    env: 'RESPAPI_OAUTH_TOKEN_URL',
    type: (profile: Profile) => url.default(profile.respapi.tokenUrl),
    help: 'token endpoint for refreshing it',
    docsDefault: fromProfile,
  },
  respapiInstructionsPath: {
    group: 'upstream',
    env: 'RESPAPI_INSTRUCTIONS_PATH',
    type: text.optional(),
    help: 'instruction prompt file',
    shownDefault: 'assets/respapi-instructions.md',
  },
  respapiSessionIdleMs: {
    group: 'upstream',
    env: 'RESPAPI_SESSION_IDLE_MS',
    type: int(1000, 7 * 24 * 3_600_000).default(3_600_000),
    help: 'idle lifetime of a response-API session',
  },
  healthRefreshMs: {
    group: 'limits',
    env: 'HEALTH_REFRESH_MS',
    type: int(500, 3_600_000).default(30_000),
    help: 'how often the CLI probe runs in the background',
  },
  shutdownGraceMs: {
    group: 'limits',
    env: 'SHUTDOWN_GRACE_MS',
    type: int(0, 600_000).default(10_000),
    help: 'how long in-flight streams may finish on shutdown',
  },
  bodyTimeoutMs: {
    group: 'limits',
    env: 'BODY_TIMEOUT_MS',
    type: int(100, 3_600_000).default(30_000),
    help: 'deadline for a client to finish sending its request body',
  },
  dataDir: {
    group: 'data',
    env: 'DATA_DIR',
    flag: '--data-dir',
    type: () => text.default(dataDir()),
    help: 'where the usage database and other user data live',
    docs: 'where the usage database and other user data live ([usage.md](usage.md) "Where")',
    docsDefault:
      '`~/.local/share/assistant-proxy` (Linux), `~/Library/Application Support/assistant-proxy` (macOS), `%APPDATA%\\assistant-proxy` (Windows); in the desktop app, its user-data folder',
  },
  usageRetentionDays: {
    group: 'data',
    env: 'USAGE_RETENTION_DAYS',
    type: int(1, 36_500).default(90),
    help: 'days of request history kept in the usage ledger',
  },
  usageMaxMb: {
    group: 'data',
    env: 'USAGE_MAX_MB',
    type: int(1, 1_000_000).default(512),
    help: 'size cap of the usage database; oldest rows pruned past it',
  },
  captureBodies: {
    group: 'data',
    env: 'CAPTURE_BODIES',
    flag: '--capture-bodies',
    type: z.boolean().default(false),
    help: 'keep redacted request/response bodies of recent requests for the inspector',
  },
  captureBodiesCount: {
    group: 'data',
    env: 'CAPTURE_BODIES_COUNT',
    type: int(1, 10_000).default(50),
    help: 'how many recent requests keep captured bodies',
  },
  quotaAlerts: {
    group: 'data',
    env: 'QUOTA_ALERTS',
    type: z.array(z.enum(laneAlertKinds)).default([...laneAlertKinds]),
    help: `alerts that are on (each once per crossing): ${laneAlertKinds.join(', ')}; empty = none`,
    docs: 'alerts that are on, each once per crossing (docs/usage.md "Alerts"); empty = none',
  },
  modelAliases: {
    group: 'data',
    env: 'MODEL_ALIASES',
    type: z.array(z.string().regex(/^[^=\s]+=[^=\s]+$/, 'expected alias=model pairs')).default([]),
    help: 'comma list of alias=model, e.g. gpt-4o=assistant-sonnet-4-6',
    docs: 'comma list of alias=model, e.g. `gpt-4o=assistant-sonnet-4-6`',
  },
  // The Ollama listener (docs/ollama.md): off unless a port is set; 11434 is Ollama's own.
  ollamaPort: {
    group: 'ollama',
    env: 'OLLAMA_PORT',
    flag: '--ollama-port',
    type: int(0, 65535).optional(),
    help: "also serve the Ollama API on this port (11434 is Ollama's own; unset = off)",
    docs: "also serve the Ollama API on this port, for editors that speak only Ollama; `11434` is Ollama's own ([ollama.md](ollama.md)). A taken port is one line at start; the main port runs on",
    docsDefault: '`—` (off)',
  },
  ollamaMode: {
    group: 'ollama',
    env: 'OLLAMA_MODE',
    type: z.enum(['tool', 'direct']).default('tool'),
    help: "which mode answers the Ollama listener's chats: tool or direct",
    docs: "which mode answers the Ollama API's chats: `tool` or `direct` (images, every sampling setting)",
  },
} satisfies Record<string, SettingDeclaration>;
