// The settings file (`--config FILE` or ASSISTANT_PROXY_CONFIG): a JSON object keyed as the schema is, read before
// the schema checks it (docs/configuration.md).

import { readFileSync } from 'node:fs';
import { ConfigError } from './config-error.js';
import type { Settings } from './schema.js';

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
