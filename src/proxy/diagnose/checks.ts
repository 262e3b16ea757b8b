// The individual diagnose checks. Each returns a DiagnoseCheck and never throws; every text that could carry
// something from outside (an error body, a CLI message) passes through redactSecrets() before it is kept.

import { access } from 'node:fs/promises';

import { readRespapiCredentials } from '../auth/respapi-credentials.js';

import type { CliSnapshot } from '../health/cli-probe.js';

import { redactSecrets } from '../redact.js';

import type { Profile } from '../profile.js';
import { createModelCatalog } from '../models/model-catalog.js';

import type { ModeName } from '../../shared/modes.js';

import type { DiagnoseCheck } from './types.js';
import type { ModelInfo } from '../profile-models.js';

export interface ProxyTarget {
  url: string;
  accessKey?: string;
  fetch: typeof fetch;
  timeoutMs: number;
}

type Outcome = Omit<DiagnoseCheck, 'id' | 'mode' | 'title' | 'durationMs'>;

export async function timed(
  id: string,
  mode: ModeName,
  title: string,
  fn: () => Promise<Outcome>,
  now: () => number,
): Promise<DiagnoseCheck> {
  const start = now();
  let out: Outcome;
  try {
    out = await fn();
  } catch (err) {
    out = {
      status: 'fail',
      detail: `The check itself failed: ${(err as Error).message}`,
      remedy: 'Run it again; if it keeps failing, include this report in a bug report.',
    };
  }
  return {
    id,
    mode,
    title,
    ...out,
    detail: redactSecrets(out.detail),
    remedy: out.remedy === undefined ? undefined : redactSecrets(out.remedy),
    durationMs: now() - start,
  };
}

export const skip = (why: string): Outcome => ({ status: 'skip', detail: 'not run', remedy: why });

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    (err: NodeJS.ErrnoException) => err.code !== 'ENOENT',
  );
}

/** "in 3 h 12 min" / "5 min ago" from an ISO time. */
export function relative(iso: string, now: number): string {
  const ms = Date.parse(iso) - now;
  const min = Math.round(Math.abs(ms) / 60_000);
  const span =
    min < 60
      ? `${min} min`
      : min < 48 * 60
        ? `${Math.floor(min / 60)} h ${min % 60} min`
        : `${Math.floor(min / 1440)} days`;
  return ms >= 0 ? `in ${span}` : `${span} ago`;
}

export function cliCheck(snap: CliSnapshot, profile: Profile): Outcome {
  const { cli } = snap;
  if (cli.status === 'healthy')
    return { status: 'pass', detail: `found at ${cli.path}${cli.version ? `, version ${cli.version}` : ''}` };
  if (cli.status === 'unhealthy')
    return {
      status: 'fail',
      detail: `not found (searched ${cli.searchedPaths.length} ${cli.searchedPaths.length === 1 ? 'place' : 'places'})`,
      remedy: `${profile.cli.installHint}, or set the CLI path in the app's Settings.`,
    };
  return {
    status: 'fail',
    detail: `found${cli.path ? ` at ${cli.path}` : ''} but it did not answer: ${cli.error ?? 'unknown error'}`,
    remedy:
      'Run the CLI once in a terminal to see what it needs (an update, a first-run prompt), then run diagnose again.',
  };
}

export function loginCheck(snap: CliSnapshot, profile: Profile, now: number): Outcome {
  const { auth } = snap;
  if (auth.status === 'unauthenticated')
    return { status: 'fail', detail: 'the CLI is not logged in', remedy: `${profile.cli.loginHint}.` };
  if (auth.status !== 'healthy')
    return {
      status: 'fail',
      detail: `the login state could not be read: ${auth.error ?? auth.status}`,
      remedy: `${profile.cli.loginHint}.`,
    };
  const who = [auth.user, auth.subscription].filter(Boolean).join(', ');
  if (!auth.expires)
    return {
      status: 'pass',
      detail: `logged in${who ? ` (${who})` : ''}; the token's expiry is not reported by the CLI`,
    };
  // An access token with a refresh token beside it renews itself: past its time it is routine, not a failure.
  if (auth.renews)
    return {
      status: 'pass',
      detail: `logged in${who ? ` (${who})` : ''}; the token ${Date.parse(auth.expires) > now ? 'expires' : 'expired'} ${relative(auth.expires, now)} (${auth.expires}) and renews itself`,
    };
  if (Date.parse(auth.expires) <= now)
    return {
      status: 'fail',
      detail: `the login token expired ${relative(auth.expires, now)} (${auth.expires})`,
      remedy: `${profile.cli.loginHint}. The proxy refreshes tokens itself while it can; an expired refresh needs a new login.`,
    };
  return {
    status: 'pass',
    detail: `logged in${who ? ` (${who})` : ''}; the token expires ${relative(auth.expires, now)} (${auth.expires})`,
  };
}

function headers(target: ProxyTarget): Record<string, string> {
  return {
    'content-type': 'application/json',
    ...(target.accessKey ? { 'x-proxy-access-key': target.accessKey } : {}),
  };
}

/** The error text of an answer in any of the route families' shapes (docs/interface.md "Errors"). */
function errorText(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown; type?: unknown } | string; message?: unknown };
    const e = parsed.error;
    const message = typeof e === 'object' && e ? e.message : typeof e === 'string' ? e : parsed.message;
    const type = typeof e === 'object' && e && typeof e.type === 'string' ? `${e.type}: ` : '';
    if (typeof message === 'string') return `HTTP ${status}, ${type}${message}`;
  } catch {
    /* not JSON */
  }
  return `HTTP ${status}${body.trim() ? `, ${body.trim().slice(0, 200)}` : ''}`;
}

async function call(
  target: ProxyTarget,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  extra: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers; ms: number }> {
  const start = Date.now();
  const res = await target.fetch(`${target.url}${path}`, {
    method,
    headers: { ...headers(target), ...extra },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(target.timeoutMs),
  });
  const text = await res.text();
  return { status: res.status, text, headers: res.headers, ms: Date.now() - start };
}

const remedyFor = (status: number, profile: Profile, mode: 'tool' | 'direct'): string =>
  status === 401 || status === 403
    ? `${profile.cli.loginHint}.`
    : status === 429
      ? 'The subscription or the proxy is rate limited right now: wait for the reset shown in the Usage tab, then try again.'
      : mode === 'tool'
        ? 'Run the CLI once in a terminal with a short prompt; if that works, include this report in a bug report.'
        : 'Check the network connection to the provider, then run diagnose again.';

/** The model of diagnose's tiny request: the smallest current model of the catalog (the cheapest to ask), from
 * the list the proxy shows, else from the built-in fallback. */
export function smallestModel(profile: Profile, listed?: ModelInfo[]): string {
  return createModelCatalog(profile, [], listed && listed.length > 0 ? { listed } : {}).smallestModel;
}

/** The proxy's own model list (the live catalog), as ModelInfo; undefined when it cannot be read. */
async function listedModels(target: ProxyTarget): Promise<ModelInfo[] | undefined> {
  const r = await call(target, 'GET', '/v1/models').catch(() => undefined);
  if (!r || r.status !== 200) return undefined;
  try {
    const data = (JSON.parse(r.text) as { data?: Array<{ id?: unknown; created?: unknown }> }).data ?? [];
    return data
      .filter((m) => typeof m.id === 'string' && typeof m.created === 'number')
      .map((m) => ({ id: m.id as string, created: m.created as number }));
  } catch {
    return undefined;
  }
}

/** A tiny real chat request through tool mode: the same route and CLI child a client's request would get. */
export async function toolRequestCheck(target: ProxyTarget, profile: Profile): Promise<Outcome> {
  const model = smallestModel(profile, await listedModels(target));
  const r = await call(target, 'POST', '/v1/messages', {
    model,
    max_tokens: 16,
    messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
  });
  if (r.status !== 200)
    return {
      status: 'fail',
      detail: `POST /v1/messages answered ${errorText(r.status, r.text)}`,
      remedy: remedyFor(r.status, profile, 'tool'),
    };
  let reply = '';
  try {
    const parsed = JSON.parse(r.text) as { content?: Array<{ type?: string; text?: string }> };
    reply = (parsed.content ?? [])
      .map((b) => (b.type === 'text' ? (b.text ?? '') : ''))
      .join('')
      .trim();
  } catch {
    return {
      status: 'fail',
      detail: 'POST /v1/messages answered 200 with a body that is not JSON',
      remedy: 'Include this report in a bug report.',
    };
  }
  return { status: 'pass', detail: `${model} answered in ${r.ms} ms: "${reply.slice(0, 60)}"` };
}

/** Direct mode's credentials, accepted or not by the provider: its model list through /api/v1/models, read now
 * (Cache-Control: no-cache makes the proxy read the provider's list before answering). */
export async function directModelsCheck(
  target: ProxyTarget,
  profile: Profile,
  credentialsPath: string,
): Promise<Outcome> {
  const r = await call(target, 'GET', '/api/v1/models', undefined, { 'cache-control': 'no-cache' });
  if (r.status !== 200)
    return {
      status: 'fail',
      detail: `GET /api/v1/models answered ${errorText(r.status, r.text)}`,
      remedy: remedyFor(r.status, profile, 'direct'),
    };
  const source = r.headers.get('x-proxy-models-source');
  const failed = r.headers.get('x-proxy-models-error');
  let count = 0;
  try {
    count = ((JSON.parse(r.text) as { data?: unknown[] }).data ?? []).length;
  } catch {
    /* counted as 0 */
  }
  // Every model list shows the catalog; the header says whether the provider's list was read through the CLI's
  // login (live) or the proxy shows a saved copy or its built-in list (docs/configuration.md "Models"); an error
  // header says the read just made failed, whatever list is still shown.
  if (source !== 'live' || failed) {
    const shown =
      source === 'live'
        ? 'the list it read before'
        : source === 'cached'
          ? 'its saved copy of it'
          : 'its built-in list';
    return {
      status: 'fail',
      detail: `the provider's model list could not be read with the CLI login token${failed ? ` (${failed})` : ''}; the proxy lists ${shown}`,
      remedy: `${profile.cli.loginHint}. Direct mode sends the CLI's OAuth token from ${credentialsPath}; if you are logged in, check the network connection to the provider.`,
    };
  }
  return { status: 'pass', detail: `the provider listed ${count} models` };
}

/**
 * Response-API mode is optional (docs/desktop.md "Diagnose"): without its login file the mode is not set up, which
 * is not a failure; a file that is there but unusable is one.
 */
export async function respapiCredentialsCheck(path: string, profile: Profile, now: number): Promise<Outcome> {
  if (!(await exists(path))) {
    return {
      status: 'unset',
      detail: `no response-API login at ${path}: the mode is not set up`,
      remedy: `${profile.respapi.loginHint}.`,
    };
  }
  try {
    const cred = await readRespapiCredentials(path, profile);
    const exp = cred.expiresAt;
    if (exp === undefined)
      return { status: 'pass', detail: `present at ${path}; the access token's expiry cannot be read` };
    const iso = new Date(exp).toISOString();
    return {
      status: 'pass',
      detail: `present at ${path}; the access token ${exp > now ? 'expires' : 'expired'} ${relative(iso, now)}${exp > now ? '' : ' (the proxy refreshes it on the next request)'}`,
    };
  } catch (err) {
    return {
      status: 'fail',
      detail: `no usable credential file at ${path}: ${(err as Error).message}`,
      remedy: `${profile.respapi.loginHint}.`,
    };
  }
}

/** The response-API session diagnose uses: named, so the window's session list says where it came from. */
const diagnoseSession = 'assistant-proxy-diagnose';

/** A tiny real request through the response-API route: the credentials are valid when the upstream accepts them. */
export async function respapiRequestCheck(target: ProxyTarget, profile: Profile): Promise<Outcome> {
  const model = profile.respapiModels[0]?.id ?? 'rm-4';
  // One named session, reused by every run, rather than a new generated one each time
  // (docs/interface.md "Response-API request").
  const r = await call(target, 'POST', `/respapi/${diagnoseSession}/responses`, {
    model,
    messages: [{ role: 'user', content: 'Reply with the single word OK.' }],
  });
  if (r.status === 200) return { status: 'pass', detail: `${model} answered in ${r.ms} ms` };
  const remedy =
    r.status === 401 || r.status === 403
      ? `${profile.respapi.loginHint}. ${profile.respapi.subscriptionHint}.`
      : r.status === 429
        ? 'The subscription is rate limited right now: wait for its reset, then try again.'
        : 'Check the network connection, then run diagnose again.';
  return {
    status: 'fail',
    detail: `POST /respapi/${diagnoseSession}/responses answered ${errorText(r.status, r.text)}`,
    remedy,
  };
}
