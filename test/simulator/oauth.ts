// The two credential refresh endpoints: the CLI's (POST /v1/oauth/token, JSON) and the response API's OAuth2 one
// (POST /respapi-oauth/token, form-urlencoded or JSON). Both count refreshes so single-flight can be asserted.

import { makeRespapiAccessToken, makeRespapiIdToken } from './jwt.js';
import { pause, sendJson } from './http.js';
import { tokenSetAdd, tokenSetDelete, tokenSetHas, tokenSetSize, type RouteContext } from './types.js';

/** The body as string fields, whether it came as JSON or as a form. */
export function formOrJson(ctx: RouteContext): Record<string, string> | undefined {
  const { record } = ctx;
  const json = record.json;
  if (json && typeof json === 'object' && !Array.isArray(json)) {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(json)) if (typeof v === 'string') out[k] = v;
    return out;
  }
  if ((record.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')) {
    return Object.fromEntries(new URLSearchParams(record.body.toString('utf8')));
  }
  return undefined;
}

function badRequest(ctx: RouteContext, description: string): void {
  sendJson(ctx.res, 400, { error: 'invalid_request', error_description: description });
}

/** The CLI credential refresh: a new sk-ant-oat01 access token, valid 8 hours, and a rotated refresh token. */
export async function handleCliToken(ctx: RouteContext): Promise<void> {
  const { state, res } = ctx;
  const knobs = state.knobs;
  const fields = formOrJson(ctx);
  if (!fields) return badRequest(ctx, 'body must be JSON or form-urlencoded');
  if (fields.grant_type !== 'refresh_token') return badRequest(ctx, 'grant_type must be refresh_token');
  state.tokenRefreshes++;
  if (!(await pause(knobs.refreshDelayMs, res))) return;
  const presented = fields.refresh_token ?? '';
  const valid = knobs.validRefreshTokens;
  const known = valid === undefined ? presented !== '' : tokenSetHas(valid, presented);
  if (knobs.refreshFail || !known || !fields.client_id) {
    sendJson(res, 400, { error: 'invalid_grant', error_description: 'Invalid refresh token' });
    return;
  }
  const n = state.next('cli-token');
  const accessToken = `sk-ant-oat01-sim-${n}`;
  const refreshToken = `sk-ant-ort01-sim-${n}`;
  if (tokenSetSize(knobs.acceptTokens) > 0) tokenSetAdd(knobs.acceptTokens, accessToken);
  if (valid !== undefined) {
    if (knobs.rotateRefreshTokens) tokenSetDelete(valid, presented);
    tokenSetAdd(valid, refreshToken);
  }
  sendJson(res, 200, {
    access_token: accessToken,
    refresh_token: refreshToken,
    expires_in: 28800,
    token_type: 'Bearer',
    scope: 'user:inference user:profile',
  });
}

/** The response API's OAuth2 refresh: JWT id and access tokens (exp now + 3600, account claim), a new refresh token. */
export async function handleRespapiToken(ctx: RouteContext): Promise<void> {
  const { state, res } = ctx;
  const knobs = state.knobs;
  const fields = formOrJson(ctx);
  if (!fields) return badRequest(ctx, 'body must be JSON or form-urlencoded');
  if (fields.grant_type !== 'refresh_token') return badRequest(ctx, 'grant_type must be refresh_token');
  state.respapiTokenRefreshes++;
  if (!(await pause(knobs.refreshDelayMs, res))) return;
  if (knobs.respapiRefreshFail || !fields.refresh_token || !fields.client_id) {
    sendJson(res, 400, { error: 'invalid_grant', error_description: 'Refresh token is invalid or expired' });
    return;
  }
  const n = state.next('respapi-token');
  const accessToken = makeRespapiAccessToken({ accountId: knobs.respapiAccountId });
  if (tokenSetSize(knobs.respapiAcceptTokens) > 0) tokenSetAdd(knobs.respapiAcceptTokens, accessToken);
  sendJson(res, 200, {
    id_token: makeRespapiIdToken({ accountId: knobs.respapiAccountId }),
    access_token: accessToken,
    refresh_token: `rt-sim-${n}`,
    token_type: 'Bearer',
    expires_in: 3600,
  });
}
