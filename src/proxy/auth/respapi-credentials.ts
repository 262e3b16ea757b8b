// The response API's OAuth2 credential file (docs/interface.md "Authentication"; docs/respapi-mode.md): a JSON file in
// the user's home directory (profile.respapi.credentialsPath, RESPAPI_CREDENTIALS_PATH) written by the response-API
// CLI:
//   { "tokens": { "id_token", "access_token", "refresh_token", "account_id" }, "last_refresh": ISO, ...others }
// The access token is a JWT whose `exp` says when it expires. Refresh uses the one refresh-token grant
// (refresh-grant.ts) on RESPAPI_OAUTH_TOKEN_URL with the profile's client id; the shared RefreshingCredential keeps
// it single-flight and never hands out a stale token, and the write-back is atomic, owner-only, and keeps every field
// it did not change.

import { readFile } from 'node:fs/promises';
import type { Dispatcher } from 'undici';
import { z } from 'zod';
import { ProxyError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Profile } from '../profile.js';
import { sweepStaleTemps, writeFileAtomic } from './atomic-write.js';
import { refreshGrant } from './refresh-grant.js';
import { RefreshingCredential } from './refreshing-credential.js';

export interface RespapiCredential {
  accessToken: string;
  refreshToken: string;
  idToken?: string;
  accountId?: string;
  /** From the access token's JWT `exp`, in ms; undefined when the token carries none. */
  expiresAt?: number;
}

/** The payload of a JWT, or undefined (the signature is the upstream's business, never checked here). */
export function decodeJwtPayload(token: string): Record<string, unknown> | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    return payload && typeof payload === 'object' && !Array.isArray(payload)
      ? (payload as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export function jwtExpiresAt(token: string): number | undefined {
  const exp = decodeJwtPayload(token)?.exp;
  return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
}

function accountFromClaims(profile: Profile, ...tokens: Array<string | undefined>): string | undefined {
  const { claim, key } = profile.respapi.accountClaim;
  for (const t of tokens) {
    const value = t ? (decodeJwtPayload(t)?.[claim] as Record<string, unknown> | undefined)?.[key] : undefined;
    if (typeof value === 'string' && value) return value;
  }
  return undefined;
}

const fileSchema = z.looseObject({
  tokens: z.looseObject({
    access_token: z.string().min(1),
    refresh_token: z.string().min(1),
    id_token: z.string().nullish(),
    account_id: z.string().nullish(),
  }),
});

function unusable(path: string, why: string, profile: Profile, cause?: unknown): ProxyError {
  return new ProxyError(
    'authentication',
    `Response-API credentials at ${path} ${why}. ${profile.respapi.loginHint} (or point RESPAPI_CREDENTIALS_PATH at the file)`,
    { cause },
  );
}

/** Reads the credential file; a missing, unreadable or incomplete file is a 401 with the remedy. */
export async function readRespapiCredentials(path: string, profile: Profile): Promise<RespapiCredential> {
  let text: string;
  try {
    await sweepStaleTemps(path); // leftovers of a writer killed mid-refresh hold tokens (auth/atomic-write.ts)
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw unusable(path, code === 'ENOENT' ? 'not found' : `cannot be read (${code ?? 'error'})`, profile, err);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw unusable(path, 'are not valid JSON', profile, err);
  }
  const parsed = fileSchema.safeParse(json);
  if (!parsed.success)
    throw unusable(
      path,
      'hold no subscription login (tokens.access_token and tokens.refresh_token are required)',
      profile,
    );
  const t = parsed.data.tokens;
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token,
    idToken: t.id_token ?? undefined,
    accountId: t.account_id || accountFromClaims(profile, t.id_token ?? undefined, t.access_token),
    expiresAt: jwtExpiresAt(t.access_token),
  };
}

/** Writes a refreshed credential back: re-reads the file so every other field (and unknown ones) survives. */
export async function writeRespapiCredentials(path: string, cred: RespapiCredential, now: number): Promise<void> {
  let file: Record<string, unknown> = {};
  try {
    const json: unknown = JSON.parse(await readFile(path, 'utf8'));
    if (json && typeof json === 'object' && !Array.isArray(json)) file = json as Record<string, unknown>;
  } catch {
    /* gone or damaged meanwhile: write a complete file rather than lose the new tokens */
  }
  const old = file.tokens && typeof file.tokens === 'object' ? (file.tokens as Record<string, unknown>) : {};
  file.tokens = {
    ...old,
    id_token: cred.idToken ?? old.id_token ?? null,
    access_token: cred.accessToken,
    refresh_token: cred.refreshToken,
    account_id: old.account_id ?? cred.accountId ?? null,
  };
  file.last_refresh = new Date(now).toISOString();
  await writeFileAtomic(path, JSON.stringify(file, null, 2));
}

interface RefreshOptions {
  tokenUrl: string;
  profile: Profile;
  dispatcher?: Dispatcher;
  timeoutMs: number;
}

/** One refresh-token grant (refresh-grant.ts): a refused grant is a 401 with the login remedy. */
async function refreshRespapiToken(cred: RespapiCredential, opts: RefreshOptions): Promise<RespapiCredential> {
  const { profile } = opts;
  const t = await refreshGrant({
    tokenUrl: opts.tokenUrl,
    refreshToken: cred.refreshToken,
    fields: { client_id: profile.respapi.clientId, scope: 'openid profile email' },
    dispatcher: opts.dispatcher,
    timeoutMs: opts.timeoutMs,
    login: 'the response-API login',
    refused: (message) => new ProxyError('authentication', `${message}. ${profile.respapi.loginHint}`),
  });
  return {
    accessToken: t.access_token,
    refreshToken: t.refresh_token ?? cred.refreshToken,
    idToken: t.id_token ?? cred.idToken,
    accountId: cred.accountId ?? accountFromClaims(profile, t.id_token ?? undefined, t.access_token),
    expiresAt: jwtExpiresAt(t.access_token),
  };
}

export interface RespapiCredentialOptions {
  path: string;
  tokenUrl: string;
  profile: Profile;
  logger: Logger;
  timeoutMs: number;
  dispatcher?: Dispatcher;
  now?: () => number;
}

/** The self-refreshing credential of response-API mode (one per proxy instance). */
export function createRespapiCredential(opts: RespapiCredentialOptions): RefreshingCredential<RespapiCredential> {
  const now = opts.now ?? Date.now;
  return new RefreshingCredential<RespapiCredential>({
    read: () => readRespapiCredentials(opts.path, opts.profile),
    tokenOf: (c) => c.accessToken,
    expiresAt: (c) => c.expiresAt,
    refresh: (c) => refreshRespapiToken(c, opts),
    write: (c) => writeRespapiCredentials(opts.path, c, now()),
    skewMs: opts.profile.respapi.refreshSkewMs,
    now,
    onRefresh: (outcome, err) => {
      if (outcome === 'ok') opts.logger.info({ mode: 'respapi' }, 'response-API token refreshed');
      else
        opts.logger.warn(
          { mode: 'respapi', err: err instanceof Error ? err.message : String(err) },
          'response-API token refresh failed',
        );
    },
  });
}
