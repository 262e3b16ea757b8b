// Response-API mode routes (SPEC.md §1, §2.7, §4, §5; docs/respapi-mode.md):
//   POST /respapi/responses               a new session id per request
//   POST /respapi/:session_id/responses   the client's session id (a safe token, else 400)
// Both forward to <RESPAPI_BASE_URL>/responses with the OAuth2 credential, our instruction prompt and the session
// id; the session id comes back in X-Proxy-Session-Id, dropped parameters in X-Proxy-Ignored-Params. A streaming
// client gets the upstream events as they arrive; a non-streaming one the final response object (the upstream
// only streams, so its stream is collected). Errors render as SPEC.md §7.1 (the /respapi family is compat).

import { createRespapiCredential } from '../auth/respapi-credentials.js';
import { ProxyError, isProxyError } from '../errors.js';
import type { RespapiResponse } from '../formats/respapi.js';
import { ignoredParamsHeader, ignoredParamsValue } from '../http/ignored-params.js';
import { errorTypeName } from '../http/render-error.js';
import { sendSse, type SseEvent } from '../http/sse.js';
import { markFirstToken } from '../http/state.js';
import type { ProxyContext } from '../http/types.js';
import { buildUpstreamRequest, type UpstreamPlan } from '../respapi/build-upstream-request.js';
import { InstructionsSource, defaultInstructionsPath } from '../respapi/instructions.js';
import { generateSessionId, isValidSessionId, sessionIdRule } from '../respapi/session-id.js';
import { SessionRegistry, type SessionRecord } from '../respapi/session-registry.js';
import { failureError, finalResponse, isFailureEvent, parseEvent, rewriteModel, usageOf } from '../respapi/upstream-events.js';
import type { Services } from '../services.js';
import { RespapiClient, type UpstreamEvent } from '../upstream/respapi-client.js';
import { addRoute, type ProxyRouter } from './define.js';

export const sessionHeader = 'x-proxy-session-id';

const registries = new WeakMap<Services, SessionRegistry>();

/** The session registry of one proxy instance, for the desktop window (undefined before registerRespapi ran). */
export function respapiSessionsOf(services: Services): SessionRegistry | undefined {
  return registries.get(services);
}

/** Thrown when the request's own signal fired: the client went away (nothing to render) or the deadline passed. */
class ClientGone extends Error {}

function abortedError(ctx: ProxyContext, timeoutMs: number): Error {
  if (ctx.state.signal.aborted) return new ClientGone('client disconnected');
  return new ProxyError('timeout', `The response-API request took longer than ${timeoutMs} ms (REQUEST_TIMEOUT_MS)`);
}

export function registerRespapi(router: ProxyRouter, services: Services): void {
  const { config, profile, logger } = services;
  const registry = new SessionRegistry({ idleMs: config.respapiSessionIdleMs, now: services.deps.now });
  registries.set(services, registry);
  services.healthExtras.set('respapi_sessions', () => ({ status: services.modeOn('respapi') ? 'enabled' : 'disabled', ...registry.snapshot() }));
  const instructions = new InstructionsSource(config.respapiInstructionsPath ?? defaultInstructionsPath());
  const timeouts = { connectTimeoutMs: config.upstreamConnectTimeoutMs, firstByteTimeoutMs: config.upstreamFirstByteTimeoutMs, idleTimeoutMs: config.upstreamIdleTimeoutMs };
  let client: RespapiClient | undefined;
  // Built on first use, so a proxy with the mode unused opens no connection pool.
  const clientOf = (): RespapiClient => {
    if (client) return client;
    const credential = createRespapiCredential({
      path: config.respapiCredentialsPath,
      tokenUrl: config.respapiOauthTokenUrl,
      profile,
      logger,
      timeoutMs: config.upstreamFirstByteTimeoutMs,
      now: services.deps.now,
    });
    client = new RespapiClient({ baseUrl: config.respapiBaseUrl, profile, credential, usage: services.usage, ...timeouts });
    return client;
  };
  services.onClose(() => client?.close());

  async function handle(ctx: ProxyContext, sessionId: string, origin: SessionRecord['origin']): Promise<void> {
    const state = ctx.state;
    ctx.set(sessionHeader, sessionId);
    const plan = buildUpstreamRequest(state.body, profile, await instructions.load());
    state.model = plan.model;
    state.stream = plan.clientStream;
    const headers: Record<string, string> = { [sessionHeader]: sessionId };
    if (plan.ignored.length > 0) {
      headers[ignoredParamsHeader] = ignoredParamsValue(plan.ignored);
      ctx.set(ignoredParamsHeader, headers[ignoredParamsHeader]);
      logger.warn({ requestId: state.requestId, mode: 'respapi', ignored: plan.ignored }, 'response-API parameters not forwarded (the upstream refuses them or has no equivalent)');
    }
    registry.touch(sessionId, origin);
    const signal = AbortSignal.any([state.signal, AbortSignal.timeout(config.requestTimeoutMs)]);
    let events: AsyncIterable<UpstreamEvent>;
    try {
      events = (await clientOf().open(plan.body, sessionId, signal)).events;
    } catch (err) {
      if (signal.aborted && !isProxyError(err)) throw abortedError(ctx, config.requestTimeoutMs);
      throw err;
    }
    if (plan.clientStream) sendSse(ctx, relay(ctx, events, plan, signal), headers);
    else await collect(ctx, events, plan, signal);
  }

  /** A client that went away gets no answer; the request log records it as a 499 client_disconnected. */
  async function handleOrGone(ctx: ProxyContext, sessionId: string, origin: SessionRecord['origin']): Promise<void> {
    try {
      await handle(ctx, sessionId, origin);
    } catch (err) {
      if (err instanceof ClientGone) return;
      throw err;
    }
  }

  /** Passes the upstream events through one by one (model shown as the neutral id), noting usage and failures. */
  async function* relay(ctx: ProxyContext, events: AsyncIterable<UpstreamEvent>, plan: UpstreamPlan, signal: AbortSignal): AsyncGenerator<SseEvent> {
    const state = ctx.state;
    let finished = false;
    try {
      for await (const ev of events) {
        const parsed = parseEvent(ev.event, ev.data);
        if (parsed.type === 'response.output_text.delta') markFirstToken(state, services.deps.now());
        const final = finalResponse(parsed);
        if (final) {
          finished = true;
          state.usage = usageOf(final) ?? state.usage;
        } else if (isFailureEvent(parsed.type)) {
          finished = true;
          state.errorType = errorTypeName(failureError(parsed), 'compat');
        }
        yield { event: ev.event, data: rewriteModel(ev.data, parsed, plan.upstreamModel, plan.model) };
      }
      if (!finished) throw new ProxyError('upstream', 'The response API stream ended before the response completed');
    } catch (caught) {
      if (state.signal.aborted) return; // the client is gone; nobody to tell
      const err = isProxyError(caught)
        ? caught
        : signal.aborted
          ? new ProxyError('timeout', `The response-API request took longer than ${config.requestTimeoutMs} ms (REQUEST_TIMEOUT_MS)`)
          : new ProxyError('upstream', 'The response API stream failed');
      if (!isProxyError(caught) && !signal.aborted) logger.error({ requestId: state.requestId, err: caught }, 'response-API stream failed');
      state.errorType = errorTypeName(err, 'compat');
      // STYLE.md habit 7: a mid-stream failure goes into the stream in the response API's own error shape.
      yield { event: 'error', data: { type: 'error', code: state.errorType, message: err.message, param: null } };
    }
  }

  /** Collects the stream into the final response object for a non-streaming client. */
  async function collect(ctx: ProxyContext, events: AsyncIterable<UpstreamEvent>, plan: UpstreamPlan, signal: AbortSignal): Promise<void> {
    let final: RespapiResponse | undefined;
    try {
      for await (const ev of events) {
        const parsed = parseEvent(ev.event, ev.data);
        if (isFailureEvent(parsed.type)) throw failureError(parsed);
        final = finalResponse(parsed) ?? final;
      }
    } catch (err) {
      if (signal.aborted && !isProxyError(err)) throw abortedError(ctx, config.requestTimeoutMs);
      throw err;
    }
    if (!final) throw new ProxyError('upstream', 'The response API stream ended before the response completed');
    markFirstToken(ctx.state, services.deps.now());
    ctx.state.usage = usageOf(final);
    ctx.status = 200;
    ctx.body = final.model === plan.upstreamModel ? { ...final, model: plan.model } : final;
  }

  addRoute(router, services, {
    method: 'POST',
    path: '/respapi/responses',
    mode: 'respapi',
    json: true,
    handler: (ctx) => handleOrGone(ctx, generateSessionId(), 'generated'),
  });
  addRoute(router, services, {
    method: 'POST',
    path: '/respapi/:session_id/responses',
    mode: 'respapi',
    json: true,
    handler: async (ctx) => {
      const id = (ctx.params as Record<string, string>).session_id ?? '';
      if (!isValidSessionId(id)) {
        throw new ProxyError('invalid_request', `Invalid session id in the path: it must be ${sessionIdRule}`, { field: 'session_id', issue: 'not a safe token' });
      }
      await handleOrGone(ctx, id, 'path');
    },
  });
}
