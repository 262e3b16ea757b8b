// The response API as the simulator serves it: POST <base>/responses, bearer JWT checked for expiry (never the
// signature), parameters the real one refuses rejected with 400, and the answer always streamed as SSE, like the real
// one. Event order: response.created, response.output_item.added, response.content_part.added,
// response.output_text.delta (one per word, paced by chunkIntervalMs), response.output_text.done,
// response.content_part.done, response.output_item.done, response.completed.

import { defaultProfile } from '../../src/proxy/profile.js';
import { applyFault } from './messages.js';
import {
  bearerOf,
  defaultFailureMessage,
  failureHeaders,
  pause,
  sendJson,
  startSse,
  takeFailure,
  writeSse,
} from './http.js';
import { decodeJwt } from './jwt.js';
import { countWords, splitText } from './reply-plan.js';
import { tokenSetHas, tokenSetSize, type RouteContext } from './types.js';

function errorBody(type: string, message: string, code: string | null = null): unknown {
  return { error: { type, code, message, param: null } };
}

/** Every text the request carries (instructions, input, messages), for the deterministic input token count. */
function inputWords(body: Record<string, unknown>): number {
  let n = 0;
  const visit = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key === undefined || key === 'text' || key === 'content' || key === 'instructions' || key === 'input') {
        n += countWords(value);
      }
    } else if (Array.isArray(value)) value.forEach((v) => visit(v));
    else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) if (k === 'text' || k === 'content') visit(v, k);
    }
  };
  visit(body.instructions, 'instructions');
  visit(body.input, 'input');
  visit(body.messages);
  return n;
}

/** Answers 401/403 and returns false when the bearer JWT is missing, expired, not accepted, or has no subscription. */
function checkAuth(ctx: RouteContext): boolean {
  const { state, record, res } = ctx;
  const token = bearerOf(record.headers);
  const payload = token ? decodeJwt(token) : undefined;
  if (!token || !payload) {
    sendJson(res, 401, errorBody('invalid_request_error', 'Missing or malformed bearer token', 'invalid_token'));
    return false;
  }
  if (typeof payload.exp !== 'number' || payload.exp * 1000 <= Date.now()) {
    sendJson(res, 401, errorBody('invalid_request_error', 'Provided authentication token is expired', 'token_expired'));
    return false;
  }
  const accepted = state.knobs.respapiAcceptTokens;
  if (tokenSetSize(accepted) > 0 && !tokenSetHas(accepted, token)) {
    sendJson(
      res,
      401,
      errorBody('invalid_request_error', 'Provided authentication token is not valid', 'invalid_token'),
    );
    return false;
  }
  if (state.knobs.respapiNoSubscription) {
    sendJson(
      res,
      403,
      errorBody('usage_not_included', 'Your plan does not include access to this API', 'usage_not_included'),
    );
    return false;
  }
  return true;
}

export async function handleResponses(ctx: RouteContext): Promise<void> {
  const { state, record, res } = ctx;
  const knobs = state.knobs;
  if (!(await pause(knobs.latencyMs, res))) return;
  if (!checkAuth(ctx)) return;
  const fail = takeFailure(state, 'respapiFailWith');
  if (fail) {
    const message = fail.message ?? defaultFailureMessage(fail.status);
    sendJson(res, fail.status, errorBody('server_error', message, String(fail.status)), failureHeaders(fail));
    return;
  }
  const body = record.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body) || typeof body.model !== 'string') {
    sendJson(res, 400, { detail: 'Request body must be a JSON object with a model' });
    return;
  }
  const refused = defaultProfile.respapi.unsupportedParams.find((p) => p in body);
  if (refused) {
    sendJson(res, 400, { detail: `Unsupported parameter: ${refused}` });
    return;
  }
  await streamResponse(ctx, body.model, inputWords(body));
}

async function streamResponse(ctx: RouteContext, model: string, inputTokens: number): Promise<void> {
  const { state, res } = ctx;
  const knobs = state.knobs;
  const n = state.next('resp');
  const respId = `resp_sim_${n}`;
  const itemId = `msg_sim_resp_${n}`;
  const pieces = splitText(knobs.respapiReplyText, knobs.chunkCount);
  const text = pieces.join('');
  const createdAt = Math.floor(Date.now() / 1000);
  const usage = {
    input_tokens: inputTokens,
    output_tokens: pieces.length,
    total_tokens: inputTokens + pieces.length,
    ...(knobs.cacheTokens ? { input_tokens_details: { cached_tokens: knobs.cacheTokens.read } } : {}),
  };
  const doneItem = {
    id: itemId,
    type: 'message',
    status: 'completed',
    role: 'assistant',
    content: [{ type: 'output_text', text, annotations: [] }],
  };
  const response = (status: string, output: unknown[], u: unknown): unknown => ({
    id: respId,
    object: 'response',
    created_at: createdAt,
    model,
    status,
    output,
    usage: u,
  });
  let seq = 0;
  const send = (event: string, data: Record<string, unknown>): boolean =>
    writeSse(res, event, { type: event, sequence_number: seq++, ...data });

  startSse(res, { 'x-request-id': `req_sim_${state.next('req')}`, ...knobs.respapiQuotaHeaders });
  send('response.created', { response: response('in_progress', [], null) });
  send('response.output_item.added', {
    output_index: 0,
    item: { id: itemId, type: 'message', status: 'in_progress', role: 'assistant', content: [] },
  });
  send('response.content_part.added', {
    item_id: itemId,
    output_index: 0,
    content_index: 0,
    part: { type: 'output_text', text: '', annotations: [] },
  });
  const faultAfter = Math.max(1, Math.floor(pieces.length / 2));
  for (let i = 0; i < pieces.length; i++) {
    if (knobs.streamFault && i >= faultAfter) {
      await applyFault(ctx, knobs.streamFault);
      return;
    }
    if (i > 0 && !(await pause(knobs.chunkIntervalMs, res))) return;
    if (i === 0 && knobs.firstDeltaDelayMs > 0 && !(await pause(knobs.firstDeltaDelayMs, res))) return;
    if (!send('response.output_text.delta', { item_id: itemId, output_index: 0, content_index: 0, delta: pieces[i] })) {
      return;
    }
  }
  if (knobs.streamFault && pieces.length <= faultAfter) {
    await applyFault(ctx, knobs.streamFault);
    return;
  }
  send('response.output_text.done', { item_id: itemId, output_index: 0, content_index: 0, text });
  send('response.content_part.done', {
    item_id: itemId,
    output_index: 0,
    content_index: 0,
    part: { type: 'output_text', text, annotations: [] },
  });
  send('response.output_item.done', { output_index: 0, item: doneItem });
  send('response.completed', { response: response('completed', [doneItem], usage) });
  res.end();
}
