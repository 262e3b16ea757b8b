// Settings persistence: the stored values go through the proxy's schema; a corrupt store falls back to defaults
// with a visible warning and the old file kept aside. electron-store needs Electron's app object, so the tests
// hand openSettings a small file-backed store with the same surface (conf reads JSON and throws on bad JSON
// when clearInvalidConfig is off, as the app configures it).

import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSettings, sanitizeStoredSettings, type StoreLike } from './settings.js';
import { validateSettings } from '../proxy/config.js';

class JsonFileStore implements StoreLike {
  private data: Record<string, unknown>;
  /** `mode`: what conf is given as configFileMode; conf's own default is 0666, 0644 under the usual umask. */
  constructor(
    readonly path: string,
    private readonly mode = 0o644,
  ) {
    this.data = existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {};
    if (!existsSync(path)) this.write({});
  }
  get store() {
    return { ...this.data };
  }
  set store(value: Record<string, unknown>) {
    this.write(value);
    this.data = { ...value };
  }
  private write(value: Record<string, unknown>) {
    // Like conf's atomic write: a new file each time, created with the mode it was given.
    rmSync(this.path, { force: true });
    writeFileSync(this.path, JSON.stringify(value), { mode: this.mode });
    chmodSync(this.path, this.mode);
  }
}

const modeOf = (path: string) => statSync(path).mode & 0o777;

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
    expect(sanitizeStoredSettings({ host: '0.0.0.0', port: 8001 })).toEqual({
      settings: { port: 8001 },
      dropped: ['host'],
    });
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
    expect(openSettings({ createStore: () => new JsonFileStore(file), filePath: file }).settings).toEqual({
      port: 8124,
      modes: ['tool', 'direct'],
    });
  });

  it('a corrupt file: defaults, a warning naming the kept copy, the copy kept, a fresh store that saves', () => {
    writeFileSync(file, '{"port": 8123,, oops');
    const s = openSettings({
      createStore: () => new JsonFileStore(file),
      filePath: file,
      now: () => Date.parse('2025-01-02T03:04:05.678Z'),
    });
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

  it('keeps the file owner-only (0600) and its directory 0700, also with a store that ignores the mode it is given', () => {
    const appDir = join(dir, 'app');
    const path = join(appDir, 'settings.json');
    // A store that honours configFileMode (as electron-store does when given it), and one that ignores it.
    const honouring = openSettings({ createStore: (o) => new JsonFileStore(path, o.configFileMode), filePath: path });
    expect(modeOf(appDir)).toBe(0o700);
    expect(modeOf(path)).toBe(0o600);
    honouring.persist({ accessKey: 'settings-test-access-key-0123' });
    expect(modeOf(path)).toBe(0o600);
    chmodSync(appDir, 0o755);
    const ignoring = openSettings({ createStore: () => new JsonFileStore(path), filePath: path });
    expect(modeOf(appDir)).toBe(0o700);
    expect(modeOf(path)).toBe(0o600);
    ignoring.persist({ accessKey: 'settings-test-access-key-4567' });
    expect(modeOf(path)).toBe(0o600);
  });

  it('a corrupt file never has its content quoted in the warning (a key written without quotes)', () => {
    const key = 'unquoted-secret-key-0123456789';
    mkdirSync(dir, { recursive: true });
    writeFileSync(file, `{"accessKey": ${key}}`);
    const s = openSettings({ createStore: () => new JsonFileStore(file), filePath: file });
    expect(s.warnings).toHaveLength(1);
    expect(s.warnings[0]).toContain('not valid JSON');
    for (let i = 0; i + 6 <= key.length; i++) expect(s.warnings[0]).not.toContain(key.slice(i, i + 6));
  });
});
