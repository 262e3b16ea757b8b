// The declaration is the one list of settings: the schema, the Config type and the readers follow from it.

import { describe, expect, expectTypeOf, it } from 'vitest';
import { createProfile } from '../profile.js';
import { settingGroups } from './declaration.js';
import { configSchema, kindOf, settings, type Config } from './schema.js';
import { settingTable } from './table.js';

describe('the settings declaration', () => {
  it('gives every setting a distinct variable and flag, named as users type them', () => {
    const envs = settings.map((s) => s.env);
    const flags = settings.flatMap((s) => (s.flag ? [s.flag] : []));
    expect(new Set(envs).size).toBe(envs.length);
    expect(new Set(flags).size).toBe(flags.length);
    for (const s of settings) {
      expect(s.env, s.key).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
      if (s.flag) expect(s.flag, s.key).toMatch(/^--[a-z]+(-[a-z]+)*$/);
      expect(Object.keys(settingGroups), s.key).toContain(s.group);
      // One line of --help each, with its default printed after it, once.
      expect(s.help, s.key).not.toMatch(/\n|\(default:/);
    }
  });

  it('builds the schema with exactly the declared keys, in the declared order', () => {
    expect(Object.keys(configSchema().shape)).toEqual(Object.keys(settingTable));
    expect(settings.map((s) => s.key)).toEqual(Object.keys(settingTable));
  });

  it("reads each setting's kind from its zod type", () => {
    expect(kindOf('port')).toBe('int');
    expect(kindOf('ollamaPort')).toBe('int');
    expect(kindOf('metricsEnabled')).toBe('bool');
    expect(kindOf('modes')).toBe('list');
    expect(kindOf('corsOrigins')).toBe('list');
    expect(kindOf('logLevel')).toBe('string');
    expect(kindOf('apiBaseUrl')).toBe('string');
  });

  it('takes the upstream defaults from the profile it is built for, and the bounds from the declaration', () => {
    const profile = createProfile({ api: { baseUrl: 'http://127.0.0.1:9' } });
    expect(configSchema(profile).parse({}).apiBaseUrl).toBe('http://127.0.0.1:9');
    expect(configSchema().safeParse({ cliMaxConcurrent: 256 }).success).toBe(true);
    expect(configSchema().safeParse({ cliMaxConcurrent: 257 }).success).toBe(false);
    expect(configSchema().safeParse({ port: 0, ollamaPort: 11434 }).success).toBe(true);
  });

  it('types Config from the table: defaults make a value sure, optional ones may be unset', () => {
    expectTypeOf<Config['port']>().toEqualTypeOf<number>();
    expectTypeOf<Config['ollamaPort']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<Config['modes']>().toEqualTypeOf<Array<'tool' | 'direct' | 'respapi'>>();
    expectTypeOf<Config['cliWorkDir']>().toEqualTypeOf<string>();
    expectTypeOf<keyof Config>().toEqualTypeOf<keyof typeof settingTable>();
  });
});
