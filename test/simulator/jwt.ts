// Unsigned-style JWTs for the response API: the simulator checks `exp` (and optionally an allow-list) but never the
// signature, so tests can mint tokens with any claims.

import { randomUUID } from 'node:crypto';

function b64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

/** header.payload.signature, base64url; the signature is a fixed placeholder. */
export function makeJwt(payload: Record<string, unknown>): string {
  return `${b64url({ alg: 'RS256', typ: 'JWT', kid: 'sim' })}.${b64url(payload)}.${Buffer.from('sim-signature').toString('base64url')}`;
}

/** The payload of a JWT, or undefined when the text is not one. */
export function decodeJwt(token: string): Record<string, unknown> | undefined {
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

/** The claim under which the response API's tokens carry the account (as the real tokens do). */
export const respapiAuthClaim = 'https://api.openai.com/auth';

export interface RespapiTokenOptions {
  /** Expiry, seconds since the epoch; default now + 3600. */
  exp?: number;
  accountId?: string;
  email?: string;
  planType?: string;
}

/** An access token shaped like the response API's: exp, and the account id in the auth claim. */
export function makeRespapiAccessToken(opts: RespapiTokenOptions = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return makeJwt({
    iss: 'https://auth.simulator.test',
    aud: ['https://api.simulator.test/v1'],
    iat: now,
    exp: opts.exp ?? now + 3600,
    jti: randomUUID(),
    [respapiAuthClaim]: {
      chatgpt_account_id: opts.accountId ?? 'acct-sim-1',
      chatgpt_plan_type: opts.planType ?? 'plus',
    },
  });
}

/** An id token: identity claims (email) plus the same auth claim. */
export function makeRespapiIdToken(opts: RespapiTokenOptions = {}): string {
  const now = Math.floor(Date.now() / 1000);
  return makeJwt({
    iss: 'https://auth.simulator.test',
    iat: now,
    exp: opts.exp ?? now + 3600,
    email: opts.email ?? 'user@example.com',
    [respapiAuthClaim]: {
      chatgpt_account_id: opts.accountId ?? 'acct-sim-1',
      chatgpt_plan_type: opts.planType ?? 'plus',
    },
  });
}
