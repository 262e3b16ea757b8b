// electron-builder accepts electron-builder.yml: loaded and checked with electron-builder's own config loader and
// JSON-schema validation (app-builder-lib), the same step `electron-builder` runs before it packages anything.
// Packaging itself needs the Electron binary and per-OS tools, which this environment does not have.

import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const repo = fileURLToPath(new URL('../../', import.meta.url));

interface BuilderConfig {
  [key: string]: unknown;
  linux?: { target?: unknown; icon?: string };
  mac?: { target?: unknown; icon?: string };
  win?: { target?: unknown; icon?: string };
  files?: string[];
}
const { getConfig, validateConfiguration } = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string | null, fromOptions: unknown): Promise<BuilderConfig>;
  validateConfiguration(config: BuilderConfig, logger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => unknown };

describe('electron-builder.yml', () => {
  it('passes electron-builder validation with the targets the issue asks for', async () => {
    const config = await getConfig(repo, `${repo}electron-builder.yml`, null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
    // The icons it names exist (run scripts/make-icons.mjs to regenerate them).
    for (const icon of [config.linux?.icon, config.mac?.icon, config.win?.icon]) expect(existsSync(`${repo}${icon}`)).toBe(true);
    expect(existsSync(`${repo}assets/icons/512x512.png`)).toBe(true);
    for (const state of ['running', 'stopped', 'attention']) {
      for (const suffix of ['', '@2x', 'Template', 'Template@2x']) expect(existsSync(`${repo}assets/tray/${state}${suffix}.png`)).toBe(true);
    }
  });

  it('the validation is real: a misspelt option is rejected', async () => {
    const config = await getConfig(repo, `${repo}electron-builder.yml`, null);
    await expect(validateConfiguration({ ...config, linux: { ...config.linux, tarrget: ['deb'] } as never }, new DebugLogger(false))).rejects.toThrow(/Invalid configuration object/);
  });
});
