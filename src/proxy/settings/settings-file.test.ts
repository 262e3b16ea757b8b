import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './config-error.js';
import { readSettingsFile } from './settings-file.js';

describe('the settings file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'settings-file-'));
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };

  it('is read as it is written; the schema checks it later', () => {
    expect(readSettingsFile(file('ok.json', '{"port": 9001, "bogus": true}'))).toEqual({ port: 9001, bogus: true });
  });

  it('names the file when it is not a JSON object, or cannot be read', () => {
    const cases: Array<[string, RegExp]> = [
      [file('bad.json', '{port'), /^Invalid settings file .*bad\.json: .*JSON/],
      [file('list.json', '[1]'), /^Invalid settings file .*list\.json: expected a JSON object$/],
      [file('null.json', 'null'), /^Invalid settings file .*null\.json: expected a JSON object$/],
      [join(dir, 'missing.json'), /^Invalid settings file .*missing\.json: ENOENT/],
    ];
    for (const [path, message] of cases) {
      expect(() => readSettingsFile(path)).toThrow(ConfigError);
      expect(() => readSettingsFile(path)).toThrow(message);
    }
  });
});
