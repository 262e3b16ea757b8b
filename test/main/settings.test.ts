// Settings persistence: the stored values go through the proxy's schema; a corrupt store falls back to defaults
// with a visible warning and the old file kept aside. electron-store needs Electron's app object, so the tests
// hand openSettings a small file-backed store with the same surface (conf reads JSON and throws on bad JSON
// when clearInvalidConfig is off, as the app configures it).

import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSettings, sanitizeStoredSettings, type StoreLike } from '../../src/main/settings.js';
import { validateSettings } from '../../src/proxy/config.js';

class JsonFileStore implements StoreLike {
  private data: Record<string, unknown>;
  constructor(readonly path: string) {
    this.data = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
  }
  get store() {
    return { ...this.data };
  }
  set store(value: Record<string, unknown>) {
    writeFileSync(this.path, JSON.stringify(value));
    this.data = { ...value };
  }
}

describe('sanitizeStoredSettings', () => {
  it('keeps valid settings as they are', () => {
    expect(sanitizeStoredSettings({ port: 8123, corsOrigins: ['http://localhost:3000'], modes: ['tool'] })).toEqual({
      settings: { port: 8123, corsOrigins: ['http://localhost:3000'], modes: ['tool'] },
      dropped: [],
    });
  });

  it('drops only the invalid and unknown values, naming them', () => {
    const result = sanitizeStoredSettings({ port: 70000, logLevel: 'loud', rateLimitPerMinute: 30, theme: 'dark' });
    expect(result.settings).toEqual({ rateLimitPerMinute: 30 });
    expect(result.dropped.sort()).toEqual(['logLevel', 'port', 'theme']);
    expect(() => validateSettings(result.settings)).not.toThrow();
  });

  it('falls back to loopback when a LAN host was stored without its access key', () => {
    expect(sanitizeStoredSettings({ host: '0.0.0.0', port: 8001 })).toEqual({ settings: { port: 8001 }, dropped: ['host'] });
  });

  it('treats a store that is not an object as empty', () => {
    expect(sanitizeStoredSettings([1, 2])).toEqual({ settings: {}, dropped: ['(whole store)'] });
    expect(sanitizeStoredSettings(undefined)).toEqual({ settings: {}, dropped: [] });
  });
});

describe('openSettings', () => {
  let dir: string;
  let file: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'settings-test-'));
    file = join(dir, 'settings.json');
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts with defaults when nothing is stored, and persists what the controller hands it', () => {
    const s = openSettings({ createStore: () => new JsonFileStore(file), filePath: file });
    expect(s).toMatchObject({ settings: {}, warnings: [] });
    s.persist({ port: 8124, modes: ['tool', 'direct'] });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ port: 8124, modes: ['tool', 'direct'] });
    expect(openSettings({ createStore: () => new JsonFileStore(file), filePath: file }).settings).toEqual({ port: 8124, modes: ['tool', 'direct'] });
  });

  it('a corrupt file: defaults, a warning naming the kept copy, the copy kept, a fresh store that saves', () => {
    writeFileSync(file, '{"port": 8123,, oops');
    const s = openSettings({ createStore: () => new JsonFileStore(file), filePath: file, now: () => Date.parse('2025-01-02T03:04:05.678Z') });
    expect(s.settings).toEqual({});
    expect(s.warnings).toHaveLength(1);
    const backup = `${file}.corrupt-2025-01-02T03-04-05-678Z`;
    expect(s.warnings[0]).toContain('could not be read');
    expect(s.warnings[0]).toContain(backup);
    expect(readFileSync(backup, 'utf8')).toBe('{"port": 8123,, oops');
    s.persist({ port: 8125 });
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ port: 8125 });
  });

  it('invalid values: the rest is kept, the file is rewritten without them, and the user is told', () => {
    writeFileSync(file, JSON.stringify({ port: -1, rateLimitPerMinute: 30 }));
    const s = openSettings({ createStore: () => new JsonFileStore(file), filePath: file });
    expect(s.settings).toEqual({ rateLimitPerMinute: 30 });
    expect(s.warnings).toEqual(['Some saved settings were invalid and were reset to their defaults: port.']);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ rateLimitPerMinute: 30 });
  });

  it('a store that cannot be opened at all: defaults, a warning, never a throw', () => {
    const s = openSettings({
      createStore: () => {
        throw new Error('EACCES: permission denied');
      },
      filePath: join(dir, 'missing', 'settings.json'),
    });
    expect(s.settings).toEqual({});
    expect(s.warnings[0]).toMatch(/cannot be used .*changes will not be saved/);
    expect(() => s.persist({ port: 8126 })).not.toThrow();
  });

  it('a save that fails is reported through onWarning, not thrown', () => {
    const seen: string[] = [];
    const failing: StoreLike = {
      path: file,
      get store() {
        return {};
      },
      set store(_value: Record<string, unknown>) {
        throw new Error('ENOSPC: no space left on device');
      },
    };
    const s = openSettings({ createStore: () => failing, filePath: file, onWarning: (m) => seen.push(m) });
    expect(() => s.persist({ port: 8127 })).not.toThrow();
    expect(seen).toEqual([`Settings could not be saved to ${file}: ENOSPC: no space left on device`]);
  });
});
