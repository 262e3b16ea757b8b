// The one refresh-token grant against a token endpoint of the test's own: what it sends, and each way it ends (a new
// token; a refused grant as the caller's 401 with the endpoint's words cleaned; a 5xx, a dead port or a silent
// endpoint as 503; a 200 without a token as 502).

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ProxyError } from '../errors.js';
import { cleanEndpointText, refreshGrant, type RefreshGrantOptions } from './refresh-grant.js';

const refreshToken = 'rt-the-one-sent-0123456789';
let server: Server | undefined;
let seen: { method?: string; type?: string; body: unknown }[] = [];

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
  seen = [];
});

/** A token endpoint answering each grant with `answer`; its URL. */
async function endpoint(answer: (res: ServerResponse) => void): Promise<string> {
  server = createServer((req: IncomingMessage, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method, type: req.headers['content-type'], body: JSON.parse(text) });
      answer(res);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/oauth/token`;
}

const json = (status: number, body: unknown) => (res: ServerResponse) =>
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

function grant(tokenUrl: string, more: Partial<RefreshGrantOptions> = {}) {
  return refreshGrant({
    tokenUrl,
    refreshToken,
    fields: { client_id: 'client-1' },
    timeoutMs: 2000,
    login: 'the test login',
    refused: (message) => new ProxyError('authentication', `${message}. Log in again.`),
    ...more,
  });
}

async function failure(p: Promise<unknown>): Promise<ProxyError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProxyError);
  return err as ProxyError;
}

describe('refreshGrant', () => {
  it('posts the grant as JSON and returns the new tokens', async () => {
    const url = await endpoint(json(200, { access_token: 'at-new', refresh_token: 'rt-new', expires_in: 3600 }));
    expect(await grant(url)).toMatchObject({ access_token: 'at-new', refresh_token: 'rt-new', expires_in: 3600 });
    expect(seen).toEqual([
      {
        method: 'POST',
        type: 'application/json',
        body: { client_id: 'client-1', grant_type: 'refresh_token', refresh_token: refreshToken },
      },
    ]);
  });

  it('keeps the refresh token out of the answer when the endpoint sends none', async () => {
    const url = await endpoint(json(200, { access_token: 'at-new' }));
    const answer = await grant(url);
    expect(answer.access_token).toBe('at-new');
    expect(answer.refresh_token ?? undefined).toBeUndefined();
  });

  it("is the caller's 401 on a 4xx, quoting the endpoint's words cleaned, bounded and without a token", async () => {
    const url = await endpoint(
      json(400, {
        error: 'invalid_grant',
        error_description: `Refresh token ${refreshToken} revoked; bearer sk-ant-oat01-abcdefghijklmnop\r\n<script>x</script> ${'pad '.repeat(100)}`,
      }),
    );
    const err = await failure(grant(url));
    expect(err.status).toBe(401);
    expect(err.message).toMatch(
      /^The test login has expired and could not be refreshed: the token endpoint answered 400 \(invalid_grant: Refresh token \[redacted\] revoked/,
    );
    expect(err.message).toMatch(/…\)\. Log in again\.$/);
    expect(err.message).not.toContain(refreshToken);
    expect(err.message).not.toContain('sk-ant-oat01');
    expect(err.message).not.toMatch(/[\r\n<>]/);
    expect(err.message.length).toBeLessThan(260);
  });

  it('is a 401 naming only the status when the 4xx has no OAuth error', async () => {
    const url = await endpoint((res) => res.writeHead(403, { 'content-type': 'text/html' }).end('<html>nope</html>'));
    const err = await failure(grant(url));
    expect(err.status).toBe(401);
    expect(err.message).toContain('the token endpoint answered 403. Log in again.');
  });

  it.each([500, 502, 503])('is a 503 "try again shortly" when the endpoint answers %i', async (status) => {
    const url = await endpoint(json(status, { error: 'server_error', error_description: refreshToken }));
    const err = await failure(grant(url));
    expect(err.status).toBe(503);
    expect(err.kind).toBe('unavailable');
    expect(err.message).toBe(
      `Could not refresh the test login: the token endpoint answered ${status}; try again shortly`,
    );
  });

  it('is a 503 when the endpoint cannot be reached', async () => {
    const url = await endpoint(json(200, {}));
    await new Promise((r) => server!.close(r));
    server = undefined;
    const err = await failure(grant(url));
    expect(err.status).toBe(503);
    expect(err.message).toMatch(
      /^Could not refresh the test login: the token endpoint is unreachable \(ECONNREFUSED\); try again shortly$/,
    );
  });

  it('is a 503 when the endpoint does not answer within the deadline, headers or body', async () => {
    const silent = await endpoint(() => undefined);
    const err = await failure(grant(silent, { timeoutMs: 100 }));
    expect(err.status).toBe(503);
    expect(err.message).toContain('did not answer within 100 ms');
    await new Promise((r) => server!.close(r));
    server = undefined;
    const dripping = await endpoint((res) => res.writeHead(200, { 'content-type': 'application/json' }).write('{'));
    expect((await failure(grant(dripping, { timeoutMs: 100 }))).status).toBe(503);
  });

  it('is a 502 when a 200 is longer than any token answer (read up to 64 KiB only)', async () => {
    const url = await endpoint(json(200, { access_token: 'at-new', pad: 'x'.repeat(70 * 1024) }));
    expect((await failure(grant(url))).status).toBe(502);
  });

  it('is a 502 when a 200 carries no access token', async () => {
    const url = await endpoint(json(200, { token_type: 'Bearer' }));
    const err = await failure(grant(url));
    expect(err.status).toBe(502);
    expect(err.message).toBe('Could not refresh the test login: the token endpoint answered without an access token');
  });
});

describe('cleanEndpointText', () => {
  it('keeps plain words and punctuation, drops the rest, and bounds the length', () => {
    expect(cleanEndpointText('invalid_grant: token expired (code 7).', 'rt-x-0123456789')).toBe(
      'invalid_grant: token expired (code 7).',
    );
    expect(cleanEndpointText('a\u0000b\u001b[31mc"d{e}', 'rt-x-0123456789')).toBe('a b [31mc d e');
    expect(cleanEndpointText('x'.repeat(500), 'rt-x-0123456789')).toHaveLength(120);
  });
});
