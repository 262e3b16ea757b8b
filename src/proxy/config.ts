// Every setting of the proxy, in one zod schema (DESIGN.md "Configuration"). Precedence:
// command-line flag > environment variable > settings file > default. The same schema validates the desktop
// app's stored settings (src/main/settings.ts), so a value that starts the headless proxy starts the app too.

import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { isLoopbackHost } from '../shared/endpoints.js';
import { modeNames, type ModeName } from '../shared/modes.js';
import { defaultProfile, type Profile } from './profile.js';
import { laneAlertKinds } from './usage/lane-alerts.js';

const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export { isLoopbackHost, type ModeName };

function dataDir(): string {
  if (process.platform === 'win32' && process.env.APPDATA) return join(process.env.APPDATA, 'assistant-proxy');
  if (process.platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'assistant-proxy');
  return join(process.env.XDG_DATA_HOME || join(homedir(), '.local', 'share'), 'assistant-proxy');
}

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const url = z.string().url();

/** The single source of truth for settings. Upstream addresses default to the provider profile's. */
export function configSchema(profile: Profile = defaultProfile) {
  return z.object({
    host: z.string().min(1).default('127.0.0.1'),
    port: int(0, 65535).default(8000),
    logLevel: z.enum(logLevels).default('info'),
    corsOrigins: z.array(z.string().url()).default([]),
    allowedHosts: z.array(z.string().min(1)).default([]),
    accessKey: z.string().min(16).optional(),
    requireAccessKey: z.boolean().default(false),
    metricsEnabled: z.boolean().default(true),
    rateLimitPerMinute: int(1, 1_000_000).default(60),
    rateLimitBurst: int(0, 1_000_000).default(10),
    maxConnections: int(1, 1_000_000).default(1024),
    maxConnectionsPerClient: int(1, 1_000_000).default(768),
    bodyLimitBytes: int(1024, 1024 * 1024 * 1024).default(10 * 1024 * 1024),
    modes: z.array(z.enum(modeNames)).default([...modeNames]),
    cliPath: z.string().min(1).optional(),
    // Unset: `cli-workdir` inside the data directory, whichever that is (validateSettings fills it in), so that
    // DATA_DIR moves everything the proxy keeps.
    cliWorkDir: z.string().min(1).optional(),
    cliAllowedTools: z.array(z.string().min(1)).default([]),
    cliDisallowedTools: z.array(z.string().min(1)).default([]),
    cliUnconfinedShell: z.boolean().default(false),
    cliMaxRetries: int(0, 10).default(2),
    cliMaxConcurrent: int(1, 256).default(4),
    cliQueueSize: int(0, 10_000).default(16),
    cliFirstTokenTimeoutMs: int(100, 3_600_000).default(60_000),
    cliToolResultTimeoutMs: int(1000, 24 * 3_600_000).default(300_000),
    requestTimeoutMs: int(100, 3_600_000).default(600_000),
    apiBaseUrl: url.default(profile.api.baseUrl),
    credentialsPath: z.string().min(1).default(profile.credentials.path),
    oauthTokenUrl: url.default(profile.credentials.tokenUrl),
    upstreamConnectTimeoutMs: int(100, 600_000).default(10_000),
    upstreamFirstByteTimeoutMs: int(100, 3_600_000).default(120_000),
    upstreamIdleTimeoutMs: int(100, 3_600_000).default(120_000),
    respapiBaseUrl: url.default(profile.respapi.baseUrl),
    respapiCredentialsPath: z.string().min(1).default(profile.respapi.credentialsPath),
    respapiOauthTokenUrl: url.default(profile.respapi.tokenUrl),
    respapiInstructionsPath: z.string().min(1).optional(),
    respapiSessionIdleMs: int(1000, 7 * 24 * 3_600_000).default(3_600_000),
    healthRefreshMs: int(500, 3_600_000).default(30_000),
    shutdownGraceMs: int(0, 600_000).default(10_000),
    bodyTimeoutMs: int(100, 3_600_000).default(30_000),
    dataDir: z.string().min(1).default(dataDir()),
    usageRetentionDays: int(1, 36_500).default(90),
    usageMaxMb: int(1, 1_000_000).default(512),
    captureBodies: z.boolean().default(false),
    captureBodiesCount: int(1, 10_000).default(50),
    quotaAlerts: z.array(z.enum(laneAlertKinds)).default([...laneAlertKinds]),
    modelAliases: z.array(z.string().regex(/^[^=\s]+=[^=\s]+$/, 'expected alias=model pairs')).default([]),
    cliPoolSize: int(0, 32).default(1),
    cliPoolIdleMs: int(1000, 24 * 3_600_000).default(300_000),
    cliUserSetup: z.boolean().default(false),
    cliLiveMax: int(0, 256).default(4),
    cliLiveIdleMs: int(1000, 24 * 3_600_000).default(600_000),
    cliLiveMaxMb: int(16, 1_000_000).default(2048),
    // The Ollama listener (docs/ollama.md): off unless a port is set; 11434 is Ollama's own.
    ollamaPort: int(0, 65535).optional(),
    ollamaMode: z.enum(['tool', 'direct']).default('tool'),
  });
}

type ParsedConfig = z.infer<ReturnType<typeof configSchema>>;
export type Config = Omit<ParsedConfig, 'cliWorkDir'> & { cliWorkDir: string };
export type ConfigKey = keyof Config;
export type Settings = Partial<Config>;

type Kind = 'string' | 'int' | 'bool' | 'list';

interface SettingSource {
  key: ConfigKey;
  env: string;
  flag?: string;
  kind: Kind;
  help: string;
  /** The default in words, where the value itself depends on the machine or on another setting. */
  shownDefault?: string;
}

/** How each setting is named outside the code (`--help` prints this list; docs/configuration.md mirrors it). */
export const settingSources: SettingSource[] = [
  { key: 'port', env: 'PORT', flag: '--port', kind: 'int', help: 'listening port (0 = any free port)' },
  {
    key: 'host',
    env: 'HOST',
    flag: '--host',
    kind: 'string',
    help: 'bind address; non-loopback needs PROXY_ACCESS_KEY',
  },
  { key: 'logLevel', env: 'LOG_LEVEL', flag: '--log-level', kind: 'string', help: logLevels.join(', ') },
  {
    key: 'corsOrigins',
    env: 'CORS_ORIGINS',
    flag: '--cors-origins',
    kind: 'list',
    help: 'comma list of allowed browser origins; empty = CORS off',
  },
  {
    key: 'allowedHosts',
    env: 'ALLOWED_HOSTS',
    flag: '--allowed-hosts',
    kind: 'list',
    help: 'extra Host header names accepted while bound to loopback',
  },
  {
    key: 'accessKey',
    env: 'PROXY_ACCESS_KEY',
    kind: 'string',
    help: 'when set, every client must present it, on loopback too (16+ chars); required beyond loopback',
  },
  {
    key: 'requireAccessKey',
    env: 'REQUIRE_ACCESS_KEY',
    kind: 'bool',
    help: "every client must present the owner's key (the file owner-key in the data directory, or PROXY_ACCESS_KEY), chats included; default: only the owner's data needs it",
  },
  { key: 'metricsEnabled', env: 'METRICS_ENABLED', flag: '--metrics', kind: 'bool', help: 'serve /metrics' },
  {
    key: 'rateLimitPerMinute',
    env: 'RATE_LIMIT_PER_MINUTE',
    kind: 'int',
    help: 'requests per minute per client IP; every loopback address counts as one client',
  },
  {
    key: 'rateLimitBurst',
    env: 'RATE_LIMIT_BURST',
    kind: 'int',
    help: 'extra requests allowed above the per-minute rate',
  },
  {
    key: 'maxConnections',
    env: 'MAX_CONNECTIONS',
    kind: 'int',
    help: 'open connections at once; more are closed on arrival',
  },
  {
    key: 'maxConnectionsPerClient',
    env: 'MAX_CONNECTIONS_PER_CLIENT',
    kind: 'int',
    help: 'open connections at once from one client address',
  },
  { key: 'bodyLimitBytes', env: 'BODY_LIMIT_BYTES', kind: 'int', help: 'largest accepted request body' },
  { key: 'modes', env: 'MODES', flag: '--modes', kind: 'list', help: `modes that are on: ${modeNames.join(', ')}` },
  {
    key: 'cliPath',
    env: 'ASSISTANT_CLI_PATH',
    flag: '--cli-path',
    kind: 'string',
    help: 'the assistant CLI executable',
    shownDefault: 'searched on PATH',
  },
  {
    key: 'cliWorkDir',
    env: 'CLI_WORKDIR',
    kind: 'string',
    help: 'working directory of CLI children, created empty and owner-only',
    shownDefault: 'DATA_DIR/cli-workdir',
  },
  {
    key: 'cliAllowedTools',
    env: 'CLI_ALLOWED_TOOLS',
    kind: 'list',
    help: "tools the CLI may use without asking (none: the CLI's own rules apply)",
  },
  { key: 'cliDisallowedTools', env: 'CLI_DISALLOWED_TOOLS', kind: 'list', help: 'tools the CLI may never use' },
  {
    key: 'cliUnconfinedShell',
    env: 'CLI_UNCONFINED_SHELL',
    kind: 'bool',
    help: 'let CLI_ALLOWED_TOOLS offer Bash: it runs any command as you, past every file rule (default false)',
  },
  {
    key: 'cliMaxRetries',
    env: 'CLI_MAX_RETRIES',
    kind: 'int',
    help: "bound on the CLI's own retries of failed provider calls",
  },
  { key: 'cliMaxConcurrent', env: 'CLI_MAX_CONCURRENT', kind: 'int', help: 'CLI children running at once' },
  { key: 'cliQueueSize', env: 'CLI_QUEUE_SIZE', kind: 'int', help: 'requests waiting for a CLI slot before 429' },
  {
    key: 'cliFirstTokenTimeoutMs',
    env: 'CLI_FIRST_TOKEN_TIMEOUT_MS',
    kind: 'int',
    help: 'deadline for the CLI to start answering',
  },
  {
    key: 'cliToolResultTimeoutMs',
    env: 'CLI_TOOL_RESULT_TIMEOUT_MS',
    kind: 'int',
    help: "how long a CLI waits for the client's tool results before it ends",
  },
  { key: 'requestTimeoutMs', env: 'REQUEST_TIMEOUT_MS', kind: 'int', help: 'deadline for a whole chat request' },
  { key: 'apiBaseUrl', env: 'ASSISTANT_API_BASE_URL', kind: 'string', help: "the provider's native API base" },
  {
    key: 'credentialsPath',
    env: 'ASSISTANT_CREDENTIALS_PATH',
    kind: 'string',
    help: "the CLI's OAuth credential file",
  },
  {
    key: 'oauthTokenUrl',
    env: 'ASSISTANT_OAUTH_TOKEN_URL',
    kind: 'string',
    help: 'token endpoint for refreshing that credential',
  },
  {
    key: 'upstreamConnectTimeoutMs',
    env: 'UPSTREAM_CONNECT_TIMEOUT_MS',
    kind: 'int',
    help: 'direct/response-API connect deadline',
  },
  {
    key: 'upstreamFirstByteTimeoutMs',
    env: 'UPSTREAM_FIRST_BYTE_TIMEOUT_MS',
    kind: 'int',
    help: 'deadline for the upstream to start answering',
  },
  {
    key: 'upstreamIdleTimeoutMs',
    env: 'UPSTREAM_IDLE_TIMEOUT_MS',
    kind: 'int',
    help: 'longest silence inside an upstream stream',
  },
  { key: 'respapiBaseUrl', env: 'RESPAPI_BASE_URL', kind: 'string', help: 'the response API base' },
  {
    key: 'respapiCredentialsPath',
    env: 'RESPAPI_CREDENTIALS_PATH',
    kind: 'string',
    help: "the response API's OAuth2 credential file",
  },
  {
    key: 'respapiOauthTokenUrl',
    env: 'RESPAPI_OAUTH_TOKEN_URL',
    kind: 'string',
    help: 'token endpoint for refreshing it',
  },
  {
    key: 'respapiInstructionsPath',
    env: 'RESPAPI_INSTRUCTIONS_PATH',
    kind: 'string',
    help: 'instruction prompt file',
    shownDefault: 'assets/respapi-instructions.md',
  },
  {
    key: 'respapiSessionIdleMs',
    env: 'RESPAPI_SESSION_IDLE_MS',
    kind: 'int',
    help: 'idle lifetime of a response-API session',
  },
  {
    key: 'healthRefreshMs',
    env: 'HEALTH_REFRESH_MS',
    kind: 'int',
    help: 'how often the CLI probe runs in the background',
  },
  {
    key: 'shutdownGraceMs',
    env: 'SHUTDOWN_GRACE_MS',
    kind: 'int',
    help: 'how long in-flight streams may finish on shutdown',
  },
  {
    key: 'bodyTimeoutMs',
    env: 'BODY_TIMEOUT_MS',
    kind: 'int',
    help: 'deadline for a client to finish sending its request body',
  },
  {
    key: 'dataDir',
    env: 'DATA_DIR',
    flag: '--data-dir',
    kind: 'string',
    help: 'where the usage database and other user data live',
  },
  {
    key: 'usageRetentionDays',
    env: 'USAGE_RETENTION_DAYS',
    kind: 'int',
    help: 'days of request history kept in the usage ledger',
  },
  {
    key: 'usageMaxMb',
    env: 'USAGE_MAX_MB',
    kind: 'int',
    help: 'size cap of the usage database; oldest rows pruned past it',
  },
  {
    key: 'captureBodies',
    env: 'CAPTURE_BODIES',
    flag: '--capture-bodies',
    kind: 'bool',
    help: 'keep redacted request/response bodies of recent requests for the inspector',
  },
  {
    key: 'captureBodiesCount',
    env: 'CAPTURE_BODIES_COUNT',
    kind: 'int',
    help: 'how many recent requests keep captured bodies',
  },
  {
    key: 'quotaAlerts',
    env: 'QUOTA_ALERTS',
    kind: 'list',
    help: `alerts that are on (each once per crossing): ${laneAlertKinds.join(', ')}; empty = none`,
  },
  {
    key: 'modelAliases',
    env: 'MODEL_ALIASES',
    kind: 'list',
    help: 'comma list of alias=model, e.g. gpt-4o=assistant-sonnet-4-6',
  },
  {
    key: 'cliPoolSize',
    env: 'CLI_POOL_SIZE',
    kind: 'int',
    help: 'warm CLI processes kept ready in tool mode (0 = off)',
  },
  { key: 'cliPoolIdleMs', env: 'CLI_POOL_IDLE_MS', kind: 'int', help: 'how long a warm CLI process may wait unused' },
  {
    key: 'cliUserSetup',
    env: 'CLI_USER_SETUP',
    kind: 'bool',
    help: "CLI children load the user's own CLI set-up (hooks, memory file, MCP servers, transcripts); costs tokens and time on every chat",
  },
  {
    key: 'cliLiveMax',
    env: 'CLI_LIVE_MAX',
    kind: 'int',
    help: 'live conversations (CLI processes kept after their turn for a follow-up) at most; 0 = off',
  },
  {
    key: 'cliLiveIdleMs',
    env: 'CLI_LIVE_IDLE_MS',
    kind: 'int',
    help: 'how long a live conversation waits for its next turn',
  },
  {
    key: 'cliLiveMaxMb',
    env: 'CLI_LIVE_MAX_MB',
    kind: 'int',
    help: 'memory cap of live and warm CLI processes together, MB',
  },
  {
    key: 'ollamaPort',
    env: 'OLLAMA_PORT',
    flag: '--ollama-port',
    kind: 'int',
    help: "also serve the Ollama API on this port (11434 is Ollama's own; unset = off)",
  },
  {
    key: 'ollamaMode',
    env: 'OLLAMA_MODE',
    kind: 'string',
    help: "which mode answers the Ollama listener's chats: tool or direct",
  },
];

export class ConfigError extends Error {
  /** The setting the message is about, when it is about one. */
  constructor(
    message: string,
    readonly key?: string,
  ) {
    super(message);
    this.name = 'ConfigError';
  }
}

function convert(source: SettingSource, raw: string, origin: string): unknown {
  const name = origin === 'flag' ? source.flag : source.env;
  switch (source.kind) {
    case 'string':
      return raw;
    case 'int': {
      if (!/^-?\d+$/.test(raw.trim()))
        throw new ConfigError(`Invalid setting ${name}: expected an integer, got "${raw}"`);
      return Number(raw);
    }
    case 'bool': {
      const v = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(v)) return true;
      if (['0', 'false', 'no', 'off'].includes(v)) return false;
      throw new ConfigError(`Invalid setting ${name}: expected true or false, got "${raw}"`);
    }
    case 'list':
      return raw
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
  }
}

export interface ParsedArgs {
  values: Settings;
  configFile?: string;
  help: boolean;
  /** `--diagnose`: check each enabled mode end to end, print a report, exit. */
  diagnose: boolean;
  /** `--full` with `--diagnose`: keep the account's e-mail and home paths in the report. */
  full: boolean;
}

/** Parses `--flag value`, `--flag=value` and `--no-metrics`. Unknown flags are an error. */
export function parseArgs(argv: string[]): ParsedArgs {
  const values: Record<string, unknown> = {};
  let configFile: string | undefined;
  let help = false;
  let diagnose = false;
  let full = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--help' || arg === '-h') {
      help = true;
      continue;
    }
    if (arg === '--diagnose') {
      diagnose = true;
      continue;
    }
    if (arg === '--full') {
      full = true;
      continue;
    }
    if (arg === '--no-metrics') {
      values.metricsEnabled = false;
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : undefined;
    const takeValue = (): string => {
      if (inline !== undefined) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new ConfigError(`Missing value for ${flag}`);
      i++;
      return next;
    };
    if (flag === '--config') {
      configFile = takeValue();
      continue;
    }
    const source = settingSources.find((s) => s.flag === flag);
    if (!source) throw new ConfigError(`Unknown option ${flag} (see --help)`);
    if (source.kind === 'bool' && inline === undefined && (argv[i + 1] === undefined || argv[i + 1].startsWith('--'))) {
      values[source.key] = true;
      continue;
    }
    values[source.key] = convert(source, takeValue(), 'flag');
  }
  return { values: values as Settings, configFile, help, diagnose, full };
}

export function readEnv(env: NodeJS.ProcessEnv): Settings {
  const values: Record<string, unknown> = {};
  for (const source of settingSources) {
    const raw = env[source.env];
    if (raw === undefined || raw === '') continue;
    values[source.key] = convert(source, raw, 'env');
  }
  return values as Settings;
}

export function readSettingsFile(path: string): Settings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ConfigError(`Invalid settings file ${path}: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new ConfigError(`Invalid settings file ${path}: expected a JSON object`);
  }
  return parsed as Settings;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = String(issue.path[0] ?? '');
  const source = settingSources.find((s) => s.key === key);
  const name = source ? `${source.env}${source.flag ? ` (${source.flag})` : ''}` : key;
  let accepted = issue.message;
  const field = configSchema().shape[key as ConfigKey] as unknown;
  const inner = field instanceof z.ZodDefault || field instanceof z.ZodOptional ? field.unwrap() : field;
  if (inner instanceof z.ZodNumber) {
    accepted = `expected an integer from ${inner.minValue} to ${inner.maxValue}`;
  } else if (issue.code === 'invalid_value' && 'values' in issue) {
    accepted = `expected one of ${(issue.values as unknown[]).join(', ')}`;
  } else if (inner instanceof z.ZodArray && key === 'corsOrigins') {
    accepted = 'expected a comma list of origins such as http://localhost:3000';
  }
  return `Invalid setting ${name}: ${accepted}`;
}

/** Validates merged settings; throws ConfigError naming the first bad setting and what it accepts. */
export function validateSettings(settings: Settings, profile: Profile = defaultProfile): Config {
  const result = configSchema(profile).strict().safeParse(settings);
  if (!result.success) {
    const issue = result.error.issues[0];
    if (issue.code === 'unrecognized_keys')
      throw new ConfigError(`Unknown setting ${issue.keys.join(', ')}`, issue.keys[0]);
    throw new ConfigError(describeIssue(issue), String(issue.path[0] ?? ''));
  }
  const config: Config = {
    ...result.data,
    cliWorkDir: result.data.cliWorkDir ?? join(result.data.dataDir, 'cli-workdir'),
  };
  if (!isLoopbackHost(config.host) && !config.accessKey) {
    throw new ConfigError(
      `Refusing to listen on ${config.host} without an access key: set PROXY_ACCESS_KEY (16+ characters) that clients must send as their API key, or bind 127.0.0.1`,
      'accessKey',
    );
  }
  if (config.ollamaPort !== undefined && config.ollamaPort !== 0 && config.ollamaPort === config.port) {
    throw new ConfigError(
      `Invalid setting OLLAMA_PORT (--ollama-port): ${config.ollamaPort} is the main port (PORT); choose another, e.g. 11434`,
      'ollamaPort',
    );
  }
  return config;
}

export interface LoadConfigInput {
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  /** Settings that sit between the file and the defaults (the desktop app's stored settings). */
  stored?: Settings;
  profile?: Profile;
}

export function loadConfig(input: LoadConfigInput = {}): {
  config: Config;
  help: boolean;
  diagnose: boolean;
  full: boolean;
} {
  const env = input.env ?? process.env;
  const args = parseArgs(input.argv ?? []);
  const file = args.configFile ?? env.ASSISTANT_PROXY_CONFIG;
  const fromFile = file ? readSettingsFile(file) : {};
  const merged = { ...input.stored, ...fromFile, ...readEnv(env), ...args.values };
  return { config: validateSettings(merged, input.profile), help: args.help, diagnose: args.diagnose, full: args.full };
}

/** A default as a person would type it back: lists comma-joined, "none" for empty or unset. */
function shownDefault(value: unknown): string {
  if (value === undefined) return 'none';
  if (Array.isArray(value)) return value.length > 0 ? value.join(',') : 'none';
  return String(value);
}

export function usage(): string {
  const defaults = configSchema().parse({}) as Record<string, unknown>;
  const lines = ['Usage: npm run serve -- [options]', '', 'Options (each also an environment variable):'];
  for (const s of settingSources) {
    lines.push(
      `  ${(s.flag ?? '').padEnd(18)} ${s.env.padEnd(30)} ${s.help} (default: ${s.shownDefault ?? shownDefault(defaults[s.key])})`,
    );
  }
  lines.push(
    `  ${'--config FILE'.padEnd(18)} ${'ASSISTANT_PROXY_CONFIG'.padEnd(30)} JSON settings file (keys as in docs/configuration.md) (default: none)`,
  );
  lines.push(
    `  ${'--diagnose'.padEnd(18)} ${''.padEnd(30)} check each enabled mode end to end, print a report, exit 0 when all is well`,
  );
  lines.push(
    `  ${'--full'.padEnd(18)} ${''.padEnd(30)} with --diagnose: keep the account e-mail and home paths in the report (left out by default)`,
  );
  lines.push(`  ${'--help'.padEnd(18)} ${''.padEnd(30)} this list`);
  return lines.join('\n');
}
