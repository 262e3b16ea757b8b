// electron-builder accepts electron-builder.yml: loaded and checked with electron-builder's own config loader and
// JSON-schema validation (app-builder-lib), the same step `electron-builder` runs before it packages anything.
// Packaging itself needs the Electron binary and per-OS tools, which this environment does not have.

import { existsSync, lstatSync, readFileSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const repo = fileURLToPath(new URL('../../', import.meta.url));

interface BuilderConfig {
  [key: string]: unknown;
  appId?: string;
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
  it("sets Electron's fuses: no RunAsNode, encrypted cookies, ASAR integrity, the app only from its ASAR", async () => {
    const config = await getConfig(repo, `${repo}electron-builder.yml`, null);
    expect(config.electronFuses).toEqual({
      runAsNode: false,
      enableCookieEncryption: true,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      enableEmbeddedAsarIntegrityValidation: true,
      onlyLoadAppFromAsar: true,
    });
    expect(config.asar).toBe(true);
  });

  it('passes electron-builder validation with the targets the issue asks for', async () => {
    const config = await getConfig(repo, `${repo}electron-builder.yml`, null);
    await expect(validateConfiguration(config, new DebugLogger(false))).resolves.toBeUndefined();
    expect(config.linux?.target).toEqual(['AppImage', 'deb']);
    expect(config.mac?.target).toEqual(['dmg']);
    expect(config.win?.target).toEqual(['nsis']);
    // The icons it names exist (run scripts/make-icons.mjs to regenerate them).
    for (const icon of [config.linux?.icon, config.mac?.icon, config.win?.icon])
      expect(existsSync(`${repo}${icon}`)).toBe(true);
    expect(existsSync(`${repo}assets/icons/512x512.png`)).toBe(true);
    for (const state of ['running', 'stopped', 'attention']) {
      for (const suffix of ['', '@2x', 'Template', 'Template@2x'])
        expect(existsSync(`${repo}assets/tray/${state}${suffix}.png`)).toBe(true);
    }
  });

  it('names the Linux window and launcher alike: desktopName in package.json, syncDesktopName, no hand-written StartupWMClass', async () => {
    const config = await getConfig(repo, `${repo}electron-builder.yml`, null);
    const pkg = JSON.parse(readFileSync(`${repo}package.json`, 'utf8')) as { desktopName?: string };
    // Electron takes WM_CLASS / app_id from desktopName; electron-builder names the .desktop file and its
    // StartupWMClass after it when syncDesktopName is on (app-builder-lib's LinuxTargetHelper).
    expect(pkg.desktopName).toBe(`${config.appId}.desktop`);
    expect((config.linux as { syncDesktopName?: boolean }).syncDesktopName).toBe(true);
    expect(JSON.stringify(config.linux)).not.toMatch(/StartupWMClass/);
  });

  it('tray icons: 24 px (48 px @2x) on Linux, 16 px (32 px @2x) on Windows, template images on macOS', () => {
    const size = (file: string) => {
      const png = readFileSync(`${repo}assets/tray/${file}`);
      return [png.readUInt32BE(16), png.readUInt32BE(20)];
    };
    for (const state of ['running', 'stopped', 'attention']) {
      expect(size(`linux/${state}.png`)).toEqual([24, 24]);
      expect(size(`linux/${state}@2x.png`)).toEqual([48, 48]);
      expect(size(`${state}.png`)).toEqual([16, 16]);
      expect(size(`${state}Template@2x.png`)).toEqual([32, 32]);
    }
  });

  it("packages no native module: nothing in the app's dependencies needs rebuilding for Electron's ABI", () => {
    // Walks package.json's dependencies (what electron-builder packs) through node_modules, nested copies first.
    const seen = new Set<string>();
    const native: string[] = [];
    const visit = (name: string, from: string) => {
      let dir = from;
      for (;;) {
        const candidate = join(dir, 'node_modules', name);
        if (existsSync(join(candidate, 'package.json'))) {
          if (seen.has(candidate)) return;
          seen.add(candidate);
          const pkg = JSON.parse(readFileSync(join(candidate, 'package.json'), 'utf8')) as {
            dependencies?: Record<string, string>;
            gypfile?: boolean;
          };
          if (pkg.gypfile || existsSync(join(candidate, 'binding.gyp'))) native.push(name);
          for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dep, candidate);
          return;
        }
        if (dir === repo.replace(/\/$/, '') || dirname(dir) === dir) return;
        dir = dirname(dir);
      }
    };
    const root = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const dep of Object.keys(root.dependencies)) visit(dep, repo.replace(/\/$/, ''));
    expect(seen.size).toBeGreaterThan(Object.keys(root.dependencies).length);
    expect(native).toEqual([]);
  });

  it("leaves out of the app what only the headless first run needs (the project's Node, typescript, tsx), and packs the rest", async () => {
    // The filter electron-builder itself applies to each dependency's files (app-builder-lib's
    // getNodeModuleFileMatcher: every file, minus the config's exclusions), asked about one file of each package.
    const { getNodeModuleFileMatcher } = require('app-builder-lib/out/fileMatcher.js') as {
      getNodeModuleFileMatcher(
        appDir: string,
        destination: string,
        expand: (s: string) => string,
        platformOptions: object,
        packager: object,
      ): {
        createFilter(): (file: string, stat: Stats & { moduleFullFilePath?: string }) => boolean;
      };
    };
    const config = await getConfig(repo, `${repo}electron-builder.yml`, null);
    const matcher = getNodeModuleFileMatcher(
      repo,
      '/app',
      (s) => s,
      {},
      { config, debugLogger: new DebugLogger(false) },
    );
    const packed = (name: string): boolean => {
      const file = join(repo, 'node_modules', name, 'package.json');
      const stat: Stats & { moduleFullFilePath?: string } = lstatSync(file);
      stat.moduleFullFilePath = join('node_modules', name, 'package.json');
      return matcher.createFilter()(file, stat);
    };
    for (const name of ['node', 'typescript', 'tsx', 'esbuild']) expect(packed(name), name).toBe(false);
    for (const name of ['koa', 'undici', 'zod', 'pino', 'electron-store']) expect(packed(name), name).toBe(true);
  });

  it('the validation is real: a misspelt option is rejected', async () => {
    const config = await getConfig(repo, `${repo}electron-builder.yml`, null);
    await expect(
      validateConfiguration(
        { ...config, linux: { ...config.linux, tarrget: ['deb'] } as never },
        new DebugLogger(false),
      ),
    ).rejects.toThrow(/Invalid configuration object/);
  });
});
