import { describe, expect, it } from 'vitest';
import { createProfile } from '../profile.js';
import type { CliSnapshot } from './cli-probe.js';
import { basicHealth, detailedHealth, withoutPaths, type ServerFigures } from './health-record.js';

const profile = createProfile();
const fig: ServerFigures = {
  service: 'assistant-proxy',
  version: '1.0.0',
  host: '127.0.0.1',
  port: 8000,
  logLevel: 'info',
  corsEnabled: false,
  startedAt: 0,
  now: 1000,
  requestsProcessed: 0,
  errors: 0,
  cliRequired: true,
};
const healthy: CliSnapshot = {
  cli: { status: 'healthy', path: '/home/owner/.local/bin/claude', version: '2.1.0', searchedPaths: [] },
  auth: { status: 'healthy', loggedIn: true, user: 'owner@example.com' },
};
const sessions = {
  respapi_sessions: {
    status: 'enabled',
    active: 1,
    created_total: 1,
    expired_total: 0,
    idle_lifetime_ms: 1,
    sessions: [{ id: 'sess-secret' }],
  },
};

describe('health records', () => {
  it("shows the owner the e-mail, the CLI's path and the session ids", () => {
    const text = JSON.stringify(detailedHealth(healthy, fig, profile, sessions, { owner: true }));
    expect(text).toContain('owner@example.com');
    expect(text).toContain('/home/owner/.local/bin/claude');
    expect(text).toContain('sess-secret');
  });

  it('leaves them out for anyone else, and says how to see them', () => {
    const record = detailedHealth(healthy, fig, profile, sessions, { owner: false });
    const text = JSON.stringify(record);
    expect(text).not.toContain('owner@example.com');
    expect(text).not.toContain('/home/owner');
    expect(text).not.toContain('sess-secret');
    expect(record.components.authentication).toMatchObject({ status: 'healthy', logged_in: true });
    expect((record.components as Record<string, unknown>).respapi_sessions).toMatchObject({ active: 1 });
    expect(record.withheld).toMatch(/owner's key/);
  });

  it('holds no path in the open basic record, whatever the CLI state', () => {
    const missing: CliSnapshot = {
      cli: { status: 'unhealthy', searchedPaths: ['/home/owner/.local/bin/claude'] },
      auth: { status: 'unknown', loggedIn: false },
    };
    const broken: CliSnapshot = {
      cli: {
        status: 'error',
        path: '/home/owner/bin/claude',
        searchedPaths: [],
        error: 'spawn /home/owner/bin/claude EACCES',
      },
      auth: { status: 'unknown', loggedIn: false },
    };
    for (const snap of [missing, broken])
      expect(JSON.stringify(basicHealth(snap, fig, profile))).not.toContain('/home/owner');
    expect(basicHealth(broken, fig, profile).error).toBe('CLI check failed: spawn <path> EACCES');
    expect(withoutPaths('C:\\Users\\owner\\claude.exe timed out')).toBe('<path> timed out');
  });
});
