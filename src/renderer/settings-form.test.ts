import { describe, expect, it } from 'vitest';
import { validateSettings } from '../proxy/config.js';
import { generateAccessKey, patchFromValues, valuesFromSettings } from './settings-form.js';

const current = validateSettings({ port: 8000 });

describe('settings form', () => {
  it('round-trips: unchanged values give an empty patch', () => {
    expect(patchFromValues(valuesFromSettings(current), current)).toEqual({ patch: {}, errors: {} });
  });

  it('sends only what changed, as the schema types', () => {
    const v = {
      ...valuesFromSettings(current),
      port: ' 8123 ',
      corsOn: true,
      corsOrigins: 'http://localhost:3000, http://127.0.0.1:5173\n',
      modes: ['direct' as const, 'tool' as const],
      logLevel: 'debug' as const,
    };
    expect(patchFromValues(v, current)).toEqual({
      patch: {
        port: 8123,
        corsOrigins: ['http://localhost:3000', 'http://127.0.0.1:5173'],
        modes: ['tool', 'direct'],
        logLevel: 'debug',
      },
      errors: {},
    });
  });

  it('switches each alert on and off, all of them on by default', () => {
    expect(valuesFromSettings(current).quotaAlerts).toEqual(['extra_usage', 'projected_limit', 'available_again']);
    const v = { ...valuesFromSettings(current), quotaAlerts: ['available_again' as const, 'extra_usage' as const] };
    expect(patchFromValues(v, current).patch).toEqual({ quotaAlerts: ['extra_usage', 'available_again'] });
    expect(patchFromValues({ ...v, quotaAlerts: [] }, current).patch).toEqual({ quotaAlerts: [] });
    // What the form sends, the proxy's own schema takes.
    expect(validateSettings({ quotaAlerts: [] }).quotaAlerts).toEqual([]);
  });

  it('LAN sets host 0.0.0.0 and the access key; clearing an optional field sends an empty string', () => {
    const v = { ...valuesFromSettings(current), network: 'lan' as const, accessKey: 'abcdefghijklmnopqrstuvwx' };
    expect(patchFromValues(v, current).patch).toEqual({ host: '0.0.0.0', accessKey: 'abcdefghijklmnopqrstuvwx' });
    const withPath = validateSettings({ cliPath: '/usr/local/bin/cli' });
    expect(patchFromValues({ ...valuesFromSettings(withPath), cliPath: '  ' }, withPath).patch).toEqual({
      cliPath: '',
    });
  });

  it('keeps a custom loopback host the form cannot express', () => {
    const custom = validateSettings({ host: '::1' });
    expect(valuesFromSettings(custom).network).toBe('loopback');
    expect(patchFromValues(valuesFromSettings(custom), custom).patch).toEqual({});
  });

  it('reports what needs no server: not a number, CORS on without origins, no mode', () => {
    const v = {
      ...valuesFromSettings(current),
      port: '80a',
      corsOn: true,
      corsOrigins: ' ',
      modes: [],
      rateLimitBurst: '-1',
    };
    expect(patchFromValues(v, current).errors).toEqual({
      port: 'Choose a port from 1 to 65535',
      corsOrigins: 'Add at least one origin, such as http://localhost:3000, or turn CORS off',
      modes: 'Turn on at least one mode: with none, every chat request is refused',
      rateLimitBurst: 'Enter a whole number',
    });
  });

  it('refuses a port outside 1 to 65535 with the same words as the live port check', () => {
    for (const port of ['70000', '0']) {
      const { patch, errors } = patchFromValues({ ...valuesFromSettings(current), port }, current);
      expect(errors).toEqual({ port: 'Choose a port from 1 to 65535' });
      expect(patch.port).toBeUndefined();
    }
    // A stored 0 (any free port, set on the command line) is not an error while the user leaves it alone.
    const anyPort = validateSettings({ port: 0 });
    expect(patchFromValues(valuesFromSettings(anyPort), anyPort).errors).toEqual({});
  });

  it("turns the Ollama API on at its usual port, off again by clearing the port, and refuses the proxy's own port", () => {
    const off = valuesFromSettings(current);
    expect(off).toMatchObject({ ollamaOn: false, ollamaPort: '11434', ollamaMode: 'tool' });
    expect(patchFromValues({ ...off, ollamaOn: true }, current)).toEqual({ patch: { ollamaPort: 11434 }, errors: {} });
    expect(patchFromValues({ ...off, ollamaOn: true, ollamaMode: 'direct' }, current).patch).toEqual({
      ollamaPort: 11434,
      ollamaMode: 'direct',
    });
    const on = validateSettings({ port: 8000, ollamaPort: 11434 });
    expect(patchFromValues({ ...valuesFromSettings(on), ollamaOn: false }, on).patch).toEqual({ ollamaPort: '' });
    expect(patchFromValues({ ...off, ollamaOn: true, ollamaPort: '8000' }, current).errors).toEqual({
      ollamaPort: "Choose a port other than the proxy's own, such as 11434",
    });
    expect(patchFromValues({ ...off, ollamaOn: true, ollamaPort: '99999' }, current).errors).toEqual({
      ollamaPort: 'Choose a port from 1 to 65535',
    });
  });

  it('generates URL-safe access keys long enough for the schema', () => {
    const key = generateAccessKey((b) => b.fill(255));
    expect(key).toBe('_'.repeat(32));
    expect(() => validateSettings({ host: '0.0.0.0', accessKey: generateAccessKey() })).not.toThrow();
  });
});
