// Response-API mode routes (docs/interface.md "Response-API request"; docs/respapi-mode.md):
//   POST /respapi/responses               a new session id per request
//   POST /respapi/:session_id/responses   the client's session id (a safe token, else 400)
// Both forward to <RESPAPI_BASE_URL>/responses through the RespapiClient that components.ts built, with the OAuth2
// credential, our instruction prompt and the session id; the session id comes back in X-Proxy-Session-Id, dropped
// parameters in X-Proxy-Ignored-Params. A streaming client gets the upstream events as they arrive; a non-streaming
// one the final response object (the upstream only streams, so its stream is collected). The upstream speaks its own
// event shapes, not native events, so this mode does not go through answer-chat.ts; it shares its pieces: the one
// observer of a chat (chat/chat-observer.ts: first content delta, usage with cached tokens, served model), the
// one writer of errors after headers (http/stream-error.ts) and the request's one signal.
// Errors render as docs/interface.md "Compatible errors" (the /respapi family is compat).

import { ProxyError, isProxyError } from '../errors.js';
import type { RespapiResponse } from './schema.js';
import { ignoredParamsHeader, ignoredParamsValue } from '../http/ignored-params.js';
import { sendSse, type SseEvent } from '../http/sse.js';
import type { ProxyState } from '../http/state.js';
import { failAfterHeaders } from '../http/stream-error.js';
import type { ProxyContext } from '../http/types.js';
import { generateSessionId, isValidSessionId, sessionIdRule } from './session-id.js';
import type { SessionRecord, SessionRegistry } from './session-registry.js';
import { failureError, finalResponse, isFailureEvent, parseEvent, rewriteModel } from './upstream-events.js';
import type { Services } from '../services.js';
import { respapiRequestToUpstream, type UpstreamPlan } from './respapi-request-to-upstream.js';
import { ChatObserver } from '../chat/chat-observer.js';
import type { RespapiClient, UpstreamEvent } from './respapi-client.js';
import type { InstructionsSource } from './instructions.js';
import { addRoute, type ProxyRouter } from '../http/add-route.js';
import { respapiErrors } from './stream-errors.js';

export const sessionHeader = 'x-proxy-session-id';

/** What response-API mode is built from, once per proxy (components.ts). */
export interface RespapiParts {
  client: RespapiClient;
  sessions: SessionRegistry;
  instructions: InstructionsSource;
}

export function registerRespapi(router: ProxyRouter, services: Services, parts: RespapiParts): void {
  const { config, profile, logger } = services;
  const { client, sessions, instructions } = parts;

  /**
   * What a failed upstream call means: the request's own signal ended it (the client went away, or shutdown), the
   * whole-request deadline passed, or the upstream failed (already a ProxyError).
   */
  function failure(err: unknown, state: ProxyState, deadline: AbortSignal): unknown {
    if (isProxyError(err)) return err;
    if (state.signal.aborted)
      return new ProxyError(
        'unavailable',
        `The request was cancelled (${state.signal.reason instanceof Error ? state.signal.reason.message : 'client disconnected'})`,
      );
    if (deadline.aborted)
      return new ProxyError(
        'timeout',
        `The response-API request took longer than ${config.requestTimeoutMs} ms (REQUEST_TIMEOUT_MS)`,
      );
    return err;
  }

  async function handle(ctx: ProxyContext, sessionId: string, origin: SessionRecord['origin']): Promise<void> {
    const state = ctx.state;
    ctx.set(sessionHeader, sessionId);
    const plan = respapiRequestToUpstream(state.body, profile, await instructions.load());
    state.model = plan.model;
    state.stream = plan.clientStream;
    const headers: Record<string, string> = { [sessionHeader]: sessionId };
    if (plan.ignored.length > 0) {
      headers[ignoredParamsHeader] = ignoredParamsValue(plan.ignored);
      ctx.set(ignoredParamsHeader, headers[ignoredParamsHeader]);
      logger.warn(
        { requestId: state.requestId, mode: 'respapi', ignored: plan.ignored },
        'response-API parameters not forwarded (the upstream refuses them or has no equivalent)',
      );
    }
    sessions.touch(sessionId, origin);
    const deadline = AbortSignal.timeout(config.requestTimeoutMs);
    const signal = AbortSignal.any([state.signal, deadline]);
    let events: AsyncIterable<UpstreamEvent>;
    try {
      events = await client.open(plan.body, sessionId, signal);
    } catch (err) {
      throw failure(err, state, deadline);
    }
    // The served model is shown, and recorded, as the neutral id the client asked for.
    const observer = new ChatObserver(state, {
      now: services.deps.now,
      servedName: (m) => (m === plan.upstreamModel ? plan.model : m),
    });
    observer.answered();
    if (plan.clientStream) sendSse(ctx, relay(ctx, events, plan, deadline, observer), headers);
    else await collect(ctx, events, plan, deadline, observer);
  }

  /** Passes the upstream events through one by one (model shown as the neutral id), noting usage and failures. */
  async function* relay(
    ctx: ProxyContext,
    events: AsyncIterable<UpstreamEvent>,
    plan: UpstreamPlan,
    deadline: AbortSignal,
    observer: ChatObserver,
  ): AsyncGenerator<SseEvent> {
    const state = ctx.state;
    let finished = false;
    try {
      for await (const ev of events) {
        const parsed = parseEvent(ev.event, ev.data);
        observer.respapi(parsed.type, parsed.json);
        if (observer.stopped) {
          finished = true;
        } else if (isFailureEvent(parsed.type)) {
          finished = true;
          state.errorType = respapiErrors.typeName(failureError(parsed));
        }
        yield { event: ev.event, data: rewriteModel(ev.data, parsed, plan.upstreamModel, plan.model) };
      }
      if (!finished) throw new ProxyError('upstream', 'The response API stream ended before the response completed');
    } catch (caught) {
      if (state.signal.aborted) return; // the client is gone: nobody to tell; the request log records the 499
      yield* failAfterHeaders(failure(caught, state, deadline), state, respapiErrors, logger);
    }
  }

  /** Collects the stream into the final response object for a non-streaming client. */
  async function collect(
    ctx: ProxyContext,
    events: AsyncIterable<UpstreamEvent>,
    plan: UpstreamPlan,
    deadline: AbortSignal,
    observer: ChatObserver,
  ): Promise<void> {
    let final: RespapiResponse | undefined;
    try {
      for await (const ev of events) {
        const parsed = parseEvent(ev.event, ev.data);
        observer.respapi(parsed.type, parsed.json);
        if (isFailureEvent(parsed.type)) throw failureError(parsed);
        final = finalResponse(parsed) ?? final;
      }
    } catch (err) {
      throw failure(err, ctx.state, deadline);
    }
    if (!final) throw new ProxyError('upstream', 'The response API stream ended before the response completed');
    ctx.status = 200;
    ctx.body = final.model === plan.upstreamModel ? { ...final, model: plan.model } : final;
  }

  addRoute(router, services, {
    method: 'POST',
    path: '/respapi/responses',
    json: true,
    handler: (ctx) => handle(ctx, generateSessionId(), 'generated'),
  });
  addRoute(router, services, {
    method: 'POST',
    path: '/respapi/:session_id/responses',
    json: true,
    handler: async (ctx) => {
      const id = (ctx.params as Record<string, string>).session_id ?? '';
      if (!isValidSessionId(id)) {
        throw new ProxyError('invalid_request', `Invalid session id in the path: it must be ${sessionIdRule}`, {
          field: 'session_id',
          issue: 'not a safe token',
        });
      }
      await handle(ctx, id, 'path');
    },
  });
}
