import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseArgs, readEnv, validateSettings } from '../src/proxy/config.js';
import { createProfile, toNeutralModel, toProviderModel } from '../src/proxy/profile.js';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('configuration', () => {
  it('defaults to loopback, port 8000, CORS off, all modes on', () => {
    const { config } = loadConfig({ argv: [], env: {} });
    expect(config.host).toBe('127.0.0.1');
    expect(config.port).toBe(8000);
    expect(config.corsOrigins).toEqual([]);
    expect(config.modes).toEqual(['tool', 'direct', 'respapi']);
    expect(config.rateLimitPerMinute).toBe(60);
    expect(config.rateLimitBurst).toBe(10);
    expect(config.bodyLimitBytes).toBe(10 * 1024 * 1024);
  });

  it('takes flag over environment over settings file over default', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cfg-'));
    const file = join(dir, 'settings.json');
    await writeFile(file, JSON.stringify({ port: 9001, logLevel: 'warn', rateLimitPerMinute: 5 }));
    const env = { PORT: '9002', LOG_LEVEL: 'debug', ASSISTANT_PROXY_CONFIG: file };
    expect(loadConfig({ argv: [], env: { ASSISTANT_PROXY_CONFIG: file } }).config.port).toBe(9001);
    const both = loadConfig({ argv: [], env }).config;
    expect(both.port).toBe(9002);
    expect(both.logLevel).toBe('debug');
    expect(both.rateLimitPerMinute).toBe(5);
    expect(loadConfig({ argv: ['--port', '9003'], env }).config.port).toBe(9003);
    expect(loadConfig({ argv: ['--port=9004'], env }).config.port).toBe(9004);
  });

  it('reads the variables of docs/configuration.md "Settings" from the environment', () => {
    const values = readEnv({
      ASSISTANT_CLI_PATH: '/opt/cli',
      ASSISTANT_API_BASE_URL: 'http://127.0.0.1:1',
      ASSISTANT_CREDENTIALS_PATH: '/tmp/c.json',
      ASSISTANT_OAUTH_TOKEN_URL: 'http://127.0.0.1:2/t',
      RESPAPI_BASE_URL: 'http://127.0.0.1:3',
      RESPAPI_CREDENTIALS_PATH: '/tmp/r.json',
      RESPAPI_OAUTH_TOKEN_URL: 'http://127.0.0.1:4/t',
      CORS_ORIGINS: 'http://a.test, http://b.test',
      METRICS_ENABLED: 'false',
      RATE_LIMIT_PER_MINUTE: '7',
      RATE_LIMIT_BURST: '0',
      MODES: 'tool,direct',
    });
    expect(values).toMatchObject({
      cliPath: '/opt/cli',
      apiBaseUrl: 'http://127.0.0.1:1',
      credentialsPath: '/tmp/c.json',
      oauthTokenUrl: 'http://127.0.0.1:2/t',
      respapiBaseUrl: 'http://127.0.0.1:3',
      respapiCredentialsPath: '/tmp/r.json',
      respapiOauthTokenUrl: 'http://127.0.0.1:4/t',
      corsOrigins: ['http://a.test', 'http://b.test'],
      metricsEnabled: false,
      rateLimitPerMinute: 7,
      rateLimitBurst: 0,
      modes: ['tool', 'direct'],
    });
  });

  it('names the setting and the accepted values when one is invalid', () => {
    const cases: Array<[string[], NodeJS.ProcessEnv, RegExp]> = [
      [['--port', '70000'], {}, /PORT \(--port\): expected an integer from 0 to 65535/],
      [[], { PORT: 'abc' }, /PORT: expected an integer, got "abc"/],
      [['--log-level', 'loud'], {}, /LOG_LEVEL.*expected one of fatal, error, warn, info, debug, trace, silent/],
      [[], { MODES: 'tool,everything' }, /MODES.*expected one of tool, direct, respapi/],
      [[], { METRICS_ENABLED: 'maybe' }, /METRICS_ENABLED: expected true or false/],
      [['--bogus'], {}, /Unknown option --bogus/],
    ];
    for (const [argv, env, message] of cases) {
      expect(() => loadConfig({ argv, env })).toThrow(message);
    }
  });

  it('refuses a non-loopback bind without an access key', () => {
    expect(() => validateSettings({ host: '0.0.0.0' })).toThrow(/PROXY_ACCESS_KEY/);
    expect(validateSettings({ host: '0.0.0.0', accessKey: 'k'.repeat(20) }).host).toBe('0.0.0.0');
    const err = (() => {
      try {
        validateSettings({ host: '0.0.0.0' });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).key).toBe('accessKey');
  });

  it('parses boolean flags with and without values', () => {
    expect(parseArgs(['--metrics']).values.metricsEnabled).toBe(true);
    expect(parseArgs(['--metrics', 'false']).values.metricsEnabled).toBe(false);
    expect(parseArgs(['--no-metrics']).values.metricsEnabled).toBe(false);
  });
});

describe('provider profile', () => {
  it('keeps provider names in one place and maps model ids both ways', () => {
    const profile = createProfile();
    expect(profile.models.map((m) => m.id)).toContain('assistant-sonnet-4-20250514');
    expect(profile.models.every((m) => m.id.startsWith('assistant-'))).toBe(true);
    const provider = toProviderModel(profile, 'assistant-sonnet-4-20250514');
    expect(provider).not.toMatch(/^assistant-/);
    expect(toNeutralModel(profile, provider)).toBe('assistant-sonnet-4-20250514');
    expect(toProviderModel(profile, 'some-other-model')).toBe('some-other-model');
  });

  it('merges overrides over the defaults', () => {
    const profile = createProfile({
      ownerName: 'acme',
      api: { baseUrl: 'http://127.0.0.1:9' },
      models: [{ id: 'assistant-x', created: 1 }],
    });
    expect(profile.ownerName).toBe('acme');
    expect(profile.api.baseUrl).toBe('http://127.0.0.1:9');
    expect(profile.api.messagesPath).toBe('/v1/messages');
    expect(profile.models).toEqual([{ id: 'assistant-x', created: 1 }]);
  });
});
