import { describe, expect, it } from 'vitest';
import type { CliSnapshot } from '../health/cli-probe.js';
import { defaultProfile } from '../profile.js';
import { loginCheck } from './checks.js';

const now = Date.parse('2026-11-27T12:00:00Z');
const snap = (auth: Partial<CliSnapshot['auth']>): CliSnapshot => ({
  cli: { status: 'healthy', path: '/usr/bin/claude', version: '2.1.330', searchedPaths: [] },
  auth: { status: 'healthy', loggedIn: true, ...auth },
});

describe('loginCheck', () => {
  it('passes an access token past its time when a refresh token renews it (a routine renewal)', () => {
    const out = loginCheck(snap({ expires: '2026-11-27T11:00:00.000Z', renews: true }), defaultProfile, now);
    expect(out).toMatchObject({ status: 'pass', detail: expect.stringContaining('renews itself') });
  });

  it('fails a login that has ended, with the way to log in', () => {
    const out = loginCheck(snap({ expires: '2026-11-27T11:00:00.000Z' }), defaultProfile, now);
    expect(out).toMatchObject({ status: 'fail', remedy: expect.stringContaining('Log in with the CLI') });
  });
});
