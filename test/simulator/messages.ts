// The provider's native API as the simulator serves it: POST /v1/messages (JSON or SSE) and GET /v1/models.

import { defaultProfile } from '../../src/proxy/profile.js';
import {
  credentialOf,
  defaultFailureMessage,
  failureHeaders,
  nativeErrorBody,
  pause,
  rateLimitHeaders,
  resetConnection,
  sendJson,
  sendJsonChunked,
  startSse,
  takeFailure,
  writeSse,
} from './http.js';
import { billingRefusalDue, overageHeaders } from './billing.js';
import { promptTokens, type CacheUsage } from './prompt-cache.js';
import { capabilitiesOf, modelRuleRefusal, simModelOf } from './model-rules.js';
import { refusalOf } from './refusals.js';
import { planContent, planReply, type ReplyPlan } from './reply-plan.js';
import { tokenSetHas, tokenSetSize, type RouteContext, type SimulatorKnobs } from './types.js';

function baseHeaders(ctx: RouteContext): Record<string, string> {
  return {
    'request-id': `req_sim_${ctx.state.next('req')}`,
    ...rateLimitHeaders(),
    ...overageHeaders(ctx.state.knobs),
    ...ctx.state.knobs.quotaHeaders,
  };
}

/** Answers 401 and returns false when the request carries no credential, or one the knobs do not accept. */
function checkAuth(ctx: RouteContext, headers: Record<string, string>): boolean {
  const credential = credentialOf(ctx.record.headers);
  const accepted = ctx.state.knobs.acceptTokens;
  if (!credential) {
    sendJson(ctx.res, 401, nativeErrorBody(401, 'x-api-key header is required'), headers);
    return false;
  }
  if (tokenSetSize(accepted) > 0 && !tokenSetHas(accepted, credential)) {
    sendJson(ctx.res, 401, nativeErrorBody(401, 'invalid x-api-key'), headers);
    return false;
  }
  return true;
}

/** Answers a failWith failure and returns true when one was due. */
function failIfAsked(ctx: RouteContext, headers: Record<string, string>): boolean {
  const fail = takeFailure(ctx.state, 'failWith');
  if (!fail) return false;
  const message = fail.message ?? defaultFailureMessage(fail.status);
  sendJson(ctx.res, fail.status, nativeErrorBody(fail.status, message), { ...headers, ...failureHeaders(fail) });
  return true;
}

export async function handleMessages(ctx: RouteContext): Promise<void> {
  const { state, record, res } = ctx;
  const knobs = state.knobs;
  if (!(await pause(knobs.latencyMs, res))) return;
  const headers = baseHeaders(ctx);
  if (!checkAuth(ctx, headers) || failIfAsked(ctx, headers)) return;

  const body = record.json as Record<string, unknown> | undefined;
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    sendJson(res, 400, nativeErrorBody(400, 'request body must be a JSON object'), headers);
    return;
  }
  if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
    sendJson(res, 400, nativeErrorBody(400, 'model: string and messages: array are required'), headers);
    return;
  }
  const refusal =
    refusalOf(body) ??
    (knobs.modelRules === 'strict' ? modelRuleRefusal(body) : undefined) ??
    billingRefusalDue(knobs, record, body);
  if (refusal) {
    sendJson(res, 400, nativeErrorBody(400, refusal), headers);
    return;
  }
  const plan = planReply(body, knobs, () => `toolu_sim_${state.next('toolu')}`);
  const billed = forcedCache(state.promptCache.bill(body, knobs.tokenRule), knobs.cacheTokens);
  record.billed = billed;
  state.onBilled?.(record);
  const id = `msg_sim_${state.next('msg')}`;
  if (body.stream === true) {
    await streamMessage(ctx, headers, id, knobs.answerModel ?? body.model, plan, billed);
    return;
  }
  const fault = knobs.streamFault;
  if (fault === 'error') {
    // A non-streamed answer's counterpart of the in-stream error event: the error object as a 200 body.
    sendJson(res, 200, streamErrorBody, headers);
    return;
  }
  const pieces = knobs.jsonChunks === 'alternate' ? (state.next('framing') % 2) * 2 : (knobs.jsonChunks ?? 0);
  await sendJsonChunked(
    res,
    200,
    {
      id,
      type: 'message',
      role: 'assistant',
      model: knobs.answerModel ?? body.model,
      content: planContent(plan),
      stop_reason: plan.stopReason,
      stop_sequence: plan.stopSequence,
      usage: usage(billed, plan.outputTokens),
    },
    headers,
    // A fault needs a chunked answer to happen halfway through: at least two writes.
    fault ? Math.max(2, pieces) : pieces,
    { intervalMs: knobs.chunkIntervalMs, atHalfway: fault ? () => applyFault(ctx, fault) : undefined },
  );
}

/** The provider's overloaded error, as an in-stream `error` event carries it. */
const streamErrorBody = { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } };

/** The bill with the cache counts a test forces through knobs.cacheTokens (its writes as 5-minute ones), if any. */
function forcedCache(billed: CacheUsage, cache: SimulatorKnobs['cacheTokens']): CacheUsage {
  if (!cache) return billed;
  return {
    ...billed,
    cache_creation_input_tokens: cache.write,
    cache_read_input_tokens: cache.read,
    cache_creation: { ephemeral_5m_input_tokens: cache.write, ephemeral_1h_input_tokens: 0 },
  };
}

/** The provider's usage object: the prompt's bill (prompt-cache.ts) and the output count. */
function usage(billed: CacheUsage, output: number): Record<string, unknown> {
  const { cache_creation, ...counts } = billed;
  return { ...counts, output_tokens: output, cache_creation };
}

/** One event of the stream, flagged when it is a delta (faults count deltas). */
interface StreamStep {
  event: string;
  data: unknown;
  delta?: boolean;
}

function streamSteps(id: string, model: string, plan: ReplyPlan, billed: CacheUsage, ping: boolean): StreamStep[] {
  const steps: StreamStep[] = [
    {
      event: 'message_start',
      data: {
        type: 'message_start',
        message: {
          id,
          type: 'message',
          role: 'assistant',
          model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: usage(billed, 1),
        },
      },
    },
  ];
  plan.blocks.forEach((block, index) => {
    const start =
      block.type === 'text'
        ? { type: 'text', text: '', ...(block.citations ? { citations: [] } : {}) }
        : { type: 'tool_use', id: block.id, name: block.name, input: {} };
    steps.push({ event: 'content_block_start', data: { type: 'content_block_start', index, content_block: start } });
    if (index === 0 && ping) steps.push({ event: 'ping', data: { type: 'ping' } });
    // A cited block's citations come before its text, one citations_delta each.
    for (const citation of block.type === 'text' ? (block.citations ?? []) : []) {
      const delta = { type: 'citations_delta', citation };
      steps.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta }, delta: true });
    }
    for (const piece of block.pieces) {
      const delta =
        block.type === 'text' ? { type: 'text_delta', text: piece } : { type: 'input_json_delta', partial_json: piece };
      steps.push({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta }, delta: true });
    }
    steps.push({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
  });
  steps.push({
    event: 'message_delta',
    data: {
      type: 'message_delta',
      delta: { stop_reason: plan.stopReason, stop_sequence: plan.stopSequence },
      usage: { output_tokens: plan.outputTokens },
    },
  });
  steps.push({ event: 'message_stop', data: { type: 'message_stop' } });
  return steps;
}

async function streamMessage(
  ctx: RouteContext,
  headers: Record<string, string>,
  id: string,
  model: string,
  plan: ReplyPlan,
  billed: CacheUsage,
): Promise<void> {
  const { state, res } = ctx;
  const knobs = state.knobs;
  const steps = streamSteps(id, model, plan, billed, knobs.ping);
  const deltaCount = steps.filter((s) => s.delta).length;
  const faultAfter = Math.max(1, Math.floor(deltaCount / 2));
  const fault = knobs.streamFault;
  startSse(res, headers);
  let deltasSent = 0;
  for (const step of steps) {
    if (fault && deltasSent >= faultAfter) {
      await applyFault(ctx, fault);
      return;
    }
    if (step.delta && deltasSent > 0 && !(await pause(knobs.chunkIntervalMs, res))) return;
    if (step.delta && deltasSent === 0 && knobs.firstDeltaDelayMs > 0 && !(await pause(knobs.firstDeltaDelayMs, res)))
      return;
    if (!writeSse(res, step.event, step.data)) return;
    if (step.delta) deltasSent++;
  }
  res.end();
}

/** Applies a streamFault; shared with the response API, whose stream has the same faults. */
export async function applyFault(
  ctx: RouteContext,
  fault: NonNullable<RouteContext['state']['knobs']['streamFault']>,
): Promise<void> {
  const { state, res } = ctx;
  switch (fault) {
    case 'truncate':
      res.end();
      return;
    case 'reset':
      await resetConnection(state, res);
      return;
    case 'error':
      writeSse(
        res,
        'error',
        state.knobs.streamError ? { type: 'error', error: state.knobs.streamError } : streamErrorBody,
      );
      res.end();
      return;
    case 'stall':
      // Nothing more is written; the socket stays open until the client aborts or close() destroys it.
      await pause(2 ** 31 - 1, res);
      return;
  }
}

function displayName(suffix: string): string {
  return suffix
    .replace(/-\d{8}$/, '')
    .split('-')
    .map((w) => (/^\d/.test(w) ? w : w[0].toUpperCase() + w.slice(1)))
    .join(' ');
}

/**
 * A model the provider lists and the profile's built-in list does not have: a model shipped after this build, which
 * the proxy must learn from the provider's list (docs/configuration.md "Models"). Newest of its family.
 */
export const simulatorOnlyModel = {
  id: 'claude-sonnet-4-7',
  created: Date.UTC(2026, 10, 2) / 1000,
  maxInputTokens: 1_000_000,
};

type ListedModel = {
  type: 'model';
  id: string;
  display_name: string;
  created_at: string;
  max_input_tokens?: number;
  max_tokens?: number;
  capabilities?: Record<string, unknown>;
};

/** A listed model's limits and capabilities (model-rules.ts), as the provider's list gives them. */
function factsOf(id: string): Pick<ListedModel, 'max_input_tokens' | 'max_tokens' | 'capabilities'> {
  const m = simModelOf(id);
  return m ? { max_input_tokens: m.maxInputTokens, max_tokens: m.maxTokens, capabilities: capabilitiesOf(m) } : {};
}

/** The provider's model ids: the simulator-only model, then the profile's public list (neutral prefix replaced by
 * the provider's), newest first as the provider lists them. */
export function providerModels(): ListedModel[] {
  const { neutral, provider } = defaultProfile.modelIdPrefix;
  const own = defaultProfile.models.map((m): ListedModel => {
    const suffix = m.id.startsWith(neutral) ? m.id.slice(neutral.length) : m.id;
    return {
      type: 'model' as const,
      id: provider + suffix,
      display_name: displayName(suffix),
      created_at: new Date(m.created * 1000).toISOString(),
      ...(m.contextLength ? { max_input_tokens: m.contextLength } : {}),
      ...factsOf(provider + suffix),
    };
  });
  const extra: ListedModel = {
    type: 'model',
    id: simulatorOnlyModel.id,
    display_name: displayName(simulatorOnlyModel.id.slice(provider.length)),
    created_at: new Date(simulatorOnlyModel.created * 1000).toISOString(),
    max_input_tokens: simulatorOnlyModel.maxInputTokens,
    ...factsOf(simulatorOnlyModel.id),
  };
  return [extra, ...own];
}

export async function handleModels(ctx: RouteContext): Promise<void> {
  if (!(await pause(ctx.state.knobs.latencyMs, ctx.res))) return;
  const headers = baseHeaders(ctx);
  if (!checkAuth(ctx, headers)) return;
  const data = providerModels();
  sendJson(
    ctx.res,
    200,
    { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null },
    headers,
  );
}

/** POST /v1/messages/count_tokens: the prompt's tokens under the same rule a message is billed by (prompt-cache.ts). */
export async function handleCountTokens(ctx: RouteContext): Promise<void> {
  const { state, record, res } = ctx;
  if (!(await pause(state.knobs.latencyMs, res))) return;
  const headers = baseHeaders(ctx);
  if (!checkAuth(ctx, headers) || failIfAsked(ctx, headers)) return;
  const body = record.json as Record<string, unknown> | undefined;
  if (
    !body ||
    typeof body !== 'object' ||
    Array.isArray(body) ||
    typeof body.model !== 'string' ||
    !Array.isArray(body.messages)
  ) {
    sendJson(res, 400, nativeErrorBody(400, 'model: string and messages: array are required'), headers);
    return;
  }
  sendJson(res, 200, { input_tokens: promptTokens(body, state.knobs.tokenRule) }, headers);
}
