// Who pays for a direct-mode request (the client's key, its own OAuth token, or the CLI login) and which headers go upstream.

import { describe, expect, it } from 'vitest';
import { createProfile } from '../profile.js';
import { clientAuthOf, forwardableHeaders, mergeFlags, upstreamHeaders } from './client-auth.js';

const profile = createProfile();
const accessKey = 'proxy-access-key-0123456789';

describe('clientAuthOf', () => {
  it.each([
    [{ 'x-api-key': 'sk-ant-api03-abc' }, { kind: 'api-key', header: 'x-api-key', value: 'sk-ant-api03-abc' }],
    [
      { authorization: 'Bearer sk-ant-api03-abc' },
      { kind: 'api-key', header: 'authorization', value: 'Bearer sk-ant-api03-abc' },
    ],
    [
      { authorization: 'Bearer dummy', 'x-api-key': 'sk-ant-api03-abc' },
      { kind: 'api-key', header: 'x-api-key', value: 'sk-ant-api03-abc' },
    ],
    [{ authorization: 'Bearer sk-ant-oat01-mine' }, { kind: 'client-oauth', token: 'sk-ant-oat01-mine' }],
    [{ 'x-api-key': 'dummy' }, { kind: 'cli-oauth' }],
    [{ authorization: 'Bearer not-needed' }, { kind: 'cli-oauth' }],
    [{}, { kind: 'cli-oauth' }],
    [{ 'x-api-key': accessKey }, { kind: 'cli-oauth' }],
  ])('%j -> %j', (headers, expected) => {
    expect(clientAuthOf(headers, profile, accessKey)).toEqual(expected);
  });

  it('never forwards the proxy access key, even one that looks like a provider key', () => {
    const key = 'sk-ant-api03-used-as-access-key';
    expect(clientAuthOf({ 'x-api-key': key }, profile, key)).toEqual({ kind: 'cli-oauth' });
  });
});

describe('upstream headers', () => {
  it('drops hop-by-hop, credential and browser headers, including those named by Connection', () => {
    expect(
      forwardableHeaders({
        connection: 'close, x-hop',
        'x-hop': '1',
        host: 'localhost:8000',
        'content-length': '10',
        authorization: 'Bearer x',
        'x-api-key': 'x',
        'x-proxy-access-key': 'x',
        cookie: 'a=b',
        origin: 'http://localhost:3000',
        'sec-fetch-mode': 'cors',
        'accept-encoding': 'gzip',
        'content-type': 'application/json',
        'anthropic-beta': 'a,b',
        'x-stainless-lang': 'js',
      }),
    ).toEqual({ 'content-type': 'application/json', 'anthropic-beta': 'a,b', 'x-stainless-lang': 'js' });
  });

  it('merges feature flags without duplicates, the client first', () => {
    expect(mergeFlags('a, oauth-2025-04-20 ,b', ['oauth-2025-04-20', 'c'])).toBe('a,oauth-2025-04-20,b,c');
    expect(mergeFlags(undefined, ['oauth-2025-04-20'])).toBe('oauth-2025-04-20');
  });

  it('adds the OAuth credential and required headers, defaults the version, keeps a client version', () => {
    expect(upstreamHeaders({ 'anthropic-beta': 'x' }, { kind: 'cli-oauth' }, profile, 'sk-ant-oat01-t')).toEqual({
      'anthropic-beta': 'x,oauth-2025-04-20',
      'anthropic-version': '2023-06-01',
      authorization: 'Bearer sk-ant-oat01-t',
    });
    // A profile may name headers of its own for OAuth requests; they are added as given.
    const withHeader = { ...profile, api: { ...profile.api, oauthHeaders: { 'X-Example': 'yes' } } };
    expect(upstreamHeaders({}, { kind: 'cli-oauth' }, withHeader, 'sk-ant-oat01-t')).toMatchObject({
      'x-example': 'yes',
    });
    expect(
      upstreamHeaders(
        { 'anthropic-version': '2099-01-01' },
        { kind: 'api-key', header: 'x-api-key', value: 'sk-ant-api03-k' },
        profile,
      ),
    ).toEqual({
      'anthropic-version': '2099-01-01',
      'x-api-key': 'sk-ant-api03-k',
    });
  });
});
