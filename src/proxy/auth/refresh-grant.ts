// The one OAuth refresh-token grant, for both credential files (cli-credentials.ts, respapi-credentials.ts); the
// single flight and the write back stay with RefreshingCredential and the two files. Every way it can end:
// - 200 with an access token: the endpoint's answer (the caller keeps its old refresh token when none came);
// - 200 without one, or not JSON: 502, the endpoint's fault, not the login's;
// - 4xx (invalid_grant and friends): the refresh token is no longer good, only a new login helps: the caller's 401
//   with its remedy. The endpoint's own words are quoted only cleaned: secrets of any shape and the refresh token
//   that was sent redacted (redact.ts), control characters and anything outside plain punctuation dropped, and
//   bounded, so neither a token echoed back nor a page of HTML reaches a client or a log;
// - 5xx, unreachable, or no answer within timeoutMs: 503 "try again shortly": the login is probably fine.
// The answer is read up to 64 KiB (http/bounded-read.ts), within the same deadline: a longer one counts as none.

import { request, type Dispatcher } from 'undici';
import { z } from 'zod';
import { ProxyError } from '../errors.js';
import { redactSecrets } from '../redact.js';
import { discardRest, readUpTo } from '../http/bounded-read.js';

export interface RefreshGrantOptions {
  tokenUrl: string;
  refreshToken: string;
  /** What else the grant's JSON body carries (client_id, scope). */
  fields: Record<string, string>;
  /** The proxy's upstream connection pool; undici's global one when absent. */
  dispatcher?: Dispatcher;
  /** Deadline for the whole exchange, the answer's body included. */
  timeoutMs: number;
  /** The login, as messages name it: "the CLI login". */
  login: string;
  /** The 401 for a refused grant: `message` with the login's remedy added. */
  refused: (message: string) => ProxyError;
}

const tokenAnswerSchema = z.looseObject({
  access_token: z.string().min(1),
  refresh_token: z.string().min(1).nullish(),
  id_token: z.string().min(1).nullish(),
  expires_in: z.number().positive().nullish(),
});

export type TokenAnswer = z.output<typeof tokenAnswerSchema>;

/** The most of the endpoint's answer that is read. */
const answerLimit = 64 * 1024;
/** The most of the endpoint's error text a message quotes. */
const quotedLimit = 120;

/** The endpoint's error text as a message may quote it: redacted, plain characters only, bounded. */
export function cleanEndpointText(text: string, refreshToken: string): string {
  const cleaned = redactSecrets(refreshToken ? text.split(refreshToken).join('[redacted]') : text)
    .replace(/[^\w .,:;'()[\]/-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > quotedLimit ? `${cleaned.slice(0, quotedLimit - 1)}…` : cleaned;
}

/** `error` and `error_description` of an OAuth error answer, cleaned; empty when it has neither. */
function reasonOf(text: string, refreshToken: string): string {
  let body: { error?: unknown; error_description?: unknown };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    return '';
  }
  const parts = [body?.error, body?.error_description].filter((x): x is string => typeof x === 'string' && x !== '');
  return cleanEndpointText(parts.join(': '), refreshToken);
}

/** One refresh-token grant (the ways it ends: above). */
export async function refreshGrant(o: RefreshGrantOptions): Promise<TokenAnswer> {
  const unavailable = (why: string, cause?: unknown) =>
    new ProxyError('unavailable', `Could not refresh ${o.login}: ${why}; try again shortly`, { status: 503, cause });
  let status: number;
  let text: string;
  const deadline = AbortSignal.timeout(o.timeoutMs);
  try {
    const res = await request(o.tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ ...o.fields, grant_type: 'refresh_token', refresh_token: o.refreshToken }),
      dispatcher: o.dispatcher,
      signal: deadline,
    });
    status = res.statusCode;
    // Read up to the bound (http/bounded-read.ts): a longer answer is neither a token nor an error worth quoting.
    const read = await readUpTo(res.body, answerLimit);
    if (!read.whole) discardRest(res.body);
    text = read.whole?.toString('utf8') ?? '';
  } catch (err) {
    if (deadline.aborted) throw unavailable(`the token endpoint did not answer within ${o.timeoutMs} ms`, err);
    const code = (err as { code?: string }).code ?? (err as Error).name;
    throw unavailable(`the token endpoint is unreachable (${code})`, err);
  }
  if (status >= 500) throw unavailable(`the token endpoint answered ${status}`);
  if (status !== 200) {
    const reason = reasonOf(text, o.refreshToken);
    const login = o.login[0].toUpperCase() + o.login.slice(1);
    throw o.refused(
      `${login} has expired and could not be refreshed: the token endpoint answered ${status}${reason ? ` (${reason})` : ''}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const answer = tokenAnswerSchema.safeParse(json);
  if (!answer.success)
    throw new ProxyError(
      'upstream',
      `Could not refresh ${o.login}: the token endpoint answered without an access token`,
    );
  return answer.data;
}
