// A ControlStatus with every field set, for tests of the tray, login watcher and IPC to vary one field at a time.

import type { ControlStatus } from '../../src/proxy/control-api.js';

export function statusFixture(overrides: Partial<ControlStatus> = {}): ControlStatus {
  return {
    state: 'running',
    host: '127.0.0.1',
    port: 8000,
    attention: [],
    modes: ['tool', 'direct', 'respapi'],
    version: '0.1.0',
    cli: { status: 'healthy', path: '/usr/local/bin/assistant', version: '1.2.3', searchedPaths: [] },
    auth: { status: 'healthy', loggedIn: true, user: 'dev@example.com', expires: '2030-01-01T00:00:00.000Z' },
    uptime: '0h 1m 0s',
    requestsProcessed: 0,
    errors: 0,
    notices: [],
    models: ['assistant-sonnet-4-20250514', 'rm-4'],
    sdk: {
      providerName: 'Provider',
      jsPackage: 'provider-sdk',
      jsClass: 'Provider',
      pyPackage: 'provider',
      pyClass: 'Provider',
    },
    ollama: { state: 'off', mode: 'tool' },
    ...overrides,
  };
}
