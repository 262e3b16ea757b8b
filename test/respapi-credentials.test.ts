// Response-API credentials (docs/interface.md "Authentication"; docs/respapi-mode.md): expiry from the access token's
// JWT `exp`, one refresh however many requests wait, an atomic owner-only write that keeps the file's other fields, and
// a failed refresh that answers 401 and never sends the stale token.

import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeJwtPayload, jwtExpiresAt, readRespapiCredentials } from '../src/proxy/auth/respapi-credentials.js';
import { ProxyError } from '../src/proxy/errors.js';
import { defaultProfile } from '../src/proxy/profile.js';
import { makeJwt, makeRespapiAccessToken } from './simulator/index.js';
import { chatBody, startRespapiBed, type RespapiBed } from './respapi-bed.js';

const past = () => Math.floor(Date.now() / 1000) - 60;
let bed: RespapiBed | undefined;
afterEach(async () => {
  await bed?.close();
  bed = undefined;
});

async function addExtraFields(path: string): Promise<void> {
  const file = JSON.parse(await readFile(path, 'utf8'));
  file.custom_setting = { keep: true };
  file.tokens.extra_token_field = 'kept';
  await writeFile(path, JSON.stringify(file, null, 2), { mode: 0o600 });
}

describe('refresh', () => {
  it('refreshes an expired token exactly once under 50 concurrent requests and rewrites the file 0600', async () => {
    bed = await startRespapiBed({ cred: { accessExp: past(), refreshToken: 'rt-original' } });
    await addExtraFields(bed.credPath);
    bed.sim.knobs.refreshDelayMs = 100; // let the requests pile up behind the one refresh
    const before = JSON.parse(await readFile(bed.credPath, 'utf8'));
    const results = await Promise.all(Array.from({ length: 50 }, () => bed!.post('/respapi/responses', chatBody())));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(bed.sim.respapiTokenRefreshes).toBe(1);

    const tokenCall = bed.sim.requests('/respapi-oauth/token')[0].json as Record<string, string>;
    expect(tokenCall).toMatchObject({
      grant_type: 'refresh_token',
      refresh_token: 'rt-original',
      client_id: defaultProfile.respapi.clientId,
    });

    const after = JSON.parse(await readFile(bed.credPath, 'utf8'));
    expect((await stat(bed.credPath)).mode & 0o777).toBe(0o600);
    expect(after.tokens.access_token).not.toBe(before.tokens.access_token);
    expect(jwtExpiresAt(after.tokens.access_token)!).toBeGreaterThan(Date.now());
    expect(after.tokens.refresh_token).toBe('rt-sim-1');
    expect(after.tokens.id_token).not.toBe(before.tokens.id_token);
    expect(after).toMatchObject({
      OPENAI_API_KEY: null,
      custom_setting: { keep: true },
      tokens: { account_id: 'acct-sim-1', extra_token_field: 'kept' },
    });
    expect(Date.parse(after.last_refresh)).toBeGreaterThanOrEqual(Date.parse(before.last_refresh));

    // Every upstream call carried the new token, none the expired one.
    const bearers = new Set(bed.sim.requests('/respapi/responses').map((r) => r.headers.authorization));
    expect([...bearers]).toEqual([`Bearer ${after.tokens.access_token}`]);
    expect(bed.proxy.logText()).not.toContain(after.tokens.refresh_token);
  });

  it('refreshes a token that expires within the skew before using it', async () => {
    const soon = Math.floor((Date.now() + defaultProfile.respapi.refreshSkewMs / 2) / 1000);
    bed = await startRespapiBed({ cred: { accessExp: soon } });
    expect((await bed.post('/respapi/responses', chatBody())).status).toBe(200);
    expect(bed.sim.respapiTokenRefreshes).toBe(1);
  });

  it('uses a fresh token without refreshing', async () => {
    bed = await startRespapiBed();
    expect((await bed.post('/respapi/responses', chatBody())).status).toBe(200);
    expect((await bed.post('/respapi/responses', chatBody())).status).toBe(200);
    expect(bed.sim.respapiTokenRefreshes).toBe(0);
  });

  it('a failed refresh is a 401 with the remedy, sends nothing upstream and leaves the file intact', async () => {
    bed = await startRespapiBed({ cred: { accessExp: past() } });
    bed.sim.knobs.respapiRefreshFail = true;
    const before = await readFile(bed.credPath, 'utf8');
    const res = await bed.post('/respapi/responses', chatBody({ stream: true }));
    expect(res.status).toBe(401);
    const err = (await res.json()).error;
    expect(err).toMatchObject({ code: 'invalid_api_key', param: null });
    expect(err.message).toContain('invalid_grant');
    expect(err.message).toContain(defaultProfile.respapi.loginHint);
    expect(bed.sim.requests('/respapi/responses')).toHaveLength(0);
    expect(await readFile(bed.credPath, 'utf8')).toBe(before);
    expect((await stat(bed.credPath)).mode & 0o777).toBe(0o600);
  });

  it('after an upstream 401 on a token that looked valid, refreshes once and retries', async () => {
    bed = await startRespapiBed();
    bed.sim.knobs.respapiAcceptTokens = new Set(['some-other-token']); // the file's token is refused; minted ones are accepted
    const res = await bed.post('/respapi/responses', chatBody());
    expect(res.status).toBe(200);
    expect(bed.sim.respapiTokenRefreshes).toBe(1);
    expect(bed.sim.requests('/respapi/responses')).toHaveLength(2);
  });

  it('concurrent upstream 401s on the same token share one forced refresh', async () => {
    bed = await startRespapiBed();
    bed.sim.knobs.respapiAcceptTokens = new Set(['some-other-token']);
    bed.sim.knobs.refreshDelayMs = 50;
    const results = await Promise.all(Array.from({ length: 10 }, () => bed!.post('/respapi/responses', chatBody())));
    expect(results.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(bed.sim.respapiTokenRefreshes).toBe(1);
  });

  it('a token still refused after the refresh is a 401 (no loop)', async () => {
    bed = await startRespapiBed();
    bed.sim.knobs.respapiFailWith = { status: 401 };
    const res = await bed.post('/respapi/responses', chatBody());
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toContain(defaultProfile.respapi.loginHint);
    expect(bed.sim.requests('/respapi/responses')).toHaveLength(2);
  });
});

describe('reading the credential file', () => {
  it('takes expiry from the JWT exp and the account from the claim when account_id is absent', async () => {
    bed = await startRespapiBed();
    const exp = Math.floor(Date.now() / 1000) + 1234;
    const file = JSON.parse(await readFile(bed.credPath, 'utf8'));
    file.tokens.access_token = makeRespapiAccessToken({ exp, accountId: 'acct-from-claim' });
    file.tokens.id_token = null;
    delete file.tokens.account_id;
    await writeFile(bed.credPath, JSON.stringify(file));
    const cred = await readRespapiCredentials(bed.credPath, defaultProfile);
    expect(cred.expiresAt).toBe(exp * 1000);
    expect(cred.accountId).toBe('acct-from-claim');
  });

  it.each([
    ['not JSON', '{oops', /not valid JSON/],
    ['an API-key login without tokens', JSON.stringify({ OPENAI_API_KEY: 'x' }), /no subscription login/],
  ])('401 with the remedy for %s', async (_name, text, message) => {
    bed = await startRespapiBed();
    const path = join(bed.dir, 'bad.json');
    await writeFile(path, text);
    const err = await readRespapiCredentials(path, defaultProfile).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProxyError);
    expect((err as ProxyError).status).toBe(401);
    expect((err as ProxyError).message).toMatch(message);
    expect((err as ProxyError).message).toContain(defaultProfile.respapi.loginHint);
  });

  it('decodes JWT payloads and rejects what is not one', () => {
    expect(decodeJwtPayload(makeJwt({ exp: 5, a: 'b' }))).toEqual({ exp: 5, a: 'b' });
    expect(decodeJwtPayload('not-a-jwt')).toBeUndefined();
    expect(decodeJwtPayload('a.!!!.c')).toBeUndefined();
    expect(jwtExpiresAt(makeJwt({ sub: 'x' }))).toBeUndefined();
  });
});
