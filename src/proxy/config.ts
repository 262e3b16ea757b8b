// Settings in, a checked `Config` out (docs/configuration.md). Precedence: command-line flag > environment
// variable > settings file > the desktop app's stored settings > default. Every setting is declared once, in
// settings/table.ts: its names outside the code, its zod type and its help; the schema built from it
// (settings/schema.ts) validates the desktop app's stored settings too (src/main/settings.ts), so a value that
// starts the headless proxy starts the app too.

import { join } from 'node:path';
import { z } from 'zod';
import { isLoopbackHost } from '../shared/endpoints.js';
import { defaultProfile, type Profile } from './profile.js';
import { ConfigError } from './settings/config-error.js';
import {
  configSchema,
  acceptedType,
  kindOf,
  settings,
  type Config,
  type Setting,
  type Settings,
} from './settings/schema.js';
import { readSettingsFile } from './settings/settings-file.js';

export { ConfigError, type Config, type Settings };
export { usage } from './settings/render.js';

function convert(source: Setting, raw: string, origin: 'flag' | 'env'): unknown {
  const name = origin === 'flag' ? source.flag : source.env;
  switch (kindOf(source.key)) {
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

interface ParsedArgs {
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
    const source = settings.find((s) => s.flag === flag);
    if (!source) throw new ConfigError(`Unknown option ${flag} (see --help)`);
    const bare = inline === undefined && (argv[i + 1] === undefined || argv[i + 1].startsWith('--'));
    if (bare && kindOf(source.key) === 'bool') {
      values[source.key] = true;
      continue;
    }
    values[source.key] = convert(source, takeValue(), 'flag');
  }
  return { values: values as Settings, configFile, help, diagnose, full };
}

export function readEnv(env: NodeJS.ProcessEnv): Settings {
  const values: Record<string, unknown> = {};
  for (const source of settings) {
    const raw = env[source.env];
    if (raw === undefined || raw === '') continue;
    values[source.key] = convert(source, raw, 'env');
  }
  return values as Settings;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = String(issue.path[0] ?? '');
  const source = settings.find((s) => s.key === key);
  const name = source ? `${source.env}${source.flag ? ` (${source.flag})` : ''}` : key;
  let accepted = issue.message;
  const inner = acceptedType(source ? configSchema().shape[source.key] : undefined);
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

interface LoadConfigInput {
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
