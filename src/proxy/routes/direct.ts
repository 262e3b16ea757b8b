// Direct mode routes (SPEC.md §1, §4, §5; docs/direct-mode.md). Registered by server.ts; this module owns every path of the mode:
//   POST /api/v1/messages                byte-level reverse proxy to the provider (upstream/forward.ts)
//   POST /api/v1/messages/count_tokens   the same, for clients that count tokens first
//   GET  /api/v1/models                  the same: the provider's native model list, for native SDKs
//   POST /api/v1/chat/completions        compatible format through DirectBackend (full translation both ways)
//   GET  /api/models                     the provider's list with public ids, or the profile's (header says which)
// One ProviderClient (keep-alive pool + the CLI credential) per proxy instance, closed with it.

import { randomBytes } from 'node:crypto';
import { DirectBackend } from '../backends/direct-backend.js';
import { ProxyError, isProxyError } from '../errors.js';
import { compatChatRequestSchema, type CompatChunk } from '../formats/compat.js';
import type { NativeStreamEvent } from '../formats/native.js';
import { validate } from '../formats/validate.js';
import { ignoredParamsHeader, ignoredParamsValue } from '../http/ignored-params.js';
import { errorTypeName, renderError } from '../http/render-error.js';
import { sendSse, type SseEvent } from '../http/sse.js';
import { markFirstToken } from '../http/state.js';
import type { ProxyContext } from '../http/types.js';
import { redactSecrets } from '../logger.js';
import type { Services } from '../services.js';
import { compatRequestToNative } from '../translate/compat-request-to-native.js';
import { mapNativeError } from '../translate/map-native-error.js';
import { reportedTokensOf } from '../translate/map-usage.js';
import { createCompatChunkState, finishCompatChunks, stepCompatChunks } from '../translate/native-events-to-compat-chunks.js';
import { collectNativeMessage } from '../translate/native-events-to-message.js';
import { nativeMessageToCompletion } from '../translate/native-message-to-completion.js';
import { clientAuthOf, type ClientAuth } from '../upstream/client-auth.js';
import { forwardToProvider } from '../upstream/forward.js';
import { ProviderClient } from '../upstream/provider-client.js';
import { fetchProviderModels, modelsSourceHeader } from '../upstream/provider-models.js';
import { addRoute, type ProxyRouter } from './define.js';
import { modelList } from './models.js';


/** The provider expects a key in x-api-key; a compatible-format client can only send it as a bearer token. */
function asProviderKey(auth: ClientAuth): ClientAuth {
  return auth.kind === 'api-key' ? { kind: 'api-key', header: 'x-api-key', value: auth.value.replace(/^bearer\s+/i, '') } : auth;
}

async function chatCompletions(ctx: ProxyContext, services: Services, client: ProviderClient): Promise<void> {
  const { profile, config, logger, deps } = services;
  const state = ctx.state;
  const body = validate(compatChatRequestSchema, state.body);
  state.model = body.model;
  state.stream = body.stream === true;
  const { request, warnings, ignored } = compatRequestToNative(body, { defaultMaxTokens: profile.api.defaultMaxTokens, profile });
  if (warnings.length > 0) logger.warn({ requestId: state.requestId, warnings }, 'compatible-format request translated with losses');
  const headers: Record<string, string> = {};
  if (ignored.length > 0) headers[ignoredParamsHeader] = ignoredParamsValue(ignored);
  const clientFlags = ctx.get(profile.api.oauthBetaHeader);
  const backend = new DirectBackend({
    client,
    messagesPath: profile.api.messagesPath,
    auth: asProviderKey(clientAuthOf(ctx.headers, profile, config.accessKey)),
    logger,
    headers: clientFlags ? { [profile.api.oauthBetaHeader.toLowerCase()]: clientFlags } : undefined,
  });
  const { stream: _stream, ...nativeRequest } = request;
  const meta = { id: `chatcmpl-${randomBytes(12).toString('hex')}`, model: body.model, created: Math.floor(deps.now() / 1000) };

  if (!state.stream) {
    const message = await collectNativeMessage(backend.stream(nativeRequest, state.signal));
    state.usage = reportedTokensOf(message.usage);
    for (const [k, v] of Object.entries(headers)) ctx.set(k, v);
    ctx.body = nativeMessageToCompletion(message, meta);
    return;
  }

  // The first event is awaited before the answer starts, so a refused request gets its real status (429 with
  // Retry-After, 401 with the remedy, 503) instead of an in-stream error.
  const events = backend.stream(nativeRequest, state.signal);
  const first = await events.next();
  if (!first.done && first.value.type === 'error') throw mapNativeError(first.value.error);
  const chunks = createCompatChunkState({ ...meta, includeUsage: body.stream_options?.include_usage === true });

  async function* compatEvents(): AsyncGenerator<SseEvent> {
    try {
      let next: IteratorResult<NativeStreamEvent> = first;
      while (!next.done) {
        // The first token is the first content delta, as in tool mode, not the role chunk of message_start.
        if (next.value.type === 'content_block_delta') markFirstToken(state, deps.now());
        for (const chunk of stepCompatChunks(next.value, chunks)) yield { data: chunk satisfies CompatChunk };
        // After the finish chunk the provider's last events (message_stop) are still read, so its connection
        // ends cleanly and goes back to the keep-alive pool; they produce no chunks.
        if (chunks.error) break;
        next = await events.next();
      }
      const end = finishCompatChunks(chunks);
      for (const chunk of end.chunks) yield { data: chunk };
      if (end.error) throw end.error;
      yield { data: '[DONE]' };
    } catch (err) {
      if (state.signal.aborted) return;
      const error = isProxyError(err) ? err : new ProxyError('internal', 'Internal server error while streaming; see the proxy log');
      if (!isProxyError(err)) logger.error({ requestId: state.requestId, err }, 'direct chat stream failed');
      else logger.warn({ requestId: state.requestId, kind: error.kind, reason: redactSecrets(error.message) }, 'direct chat stream ended with an error');
      state.errorType = errorTypeName(error, 'compat');
      // SPEC.md §7.1 shape inside the stream (STYLE.md habit 7); clients' SDKs raise it as an API error.
      yield { data: renderError(new ProxyError(error.kind, redactSecrets(error.message)), 'compat') };
      // As in tool mode: a data-only stream always ends with the sentinel (SPEC.md §6), so clients that wait
      // for [DONE] stop waiting.
      yield { data: '[DONE]' };
    } finally {
      state.usage = reportedTokensOf(chunks.usage);
      await events.return(undefined);
    }
  }
  sendSse(ctx, compatEvents(), headers);
}

async function listModels(ctx: ProxyContext, services: Services, client: ProviderClient): Promise<void> {
  const { profile, config, logger } = services;
  try {
    const models = await fetchProviderModels(services, client, asProviderKey(clientAuthOf(ctx.headers, profile, config.accessKey)), ctx.state.signal);
    ctx.set(modelsSourceHeader, 'provider');
    ctx.body = modelList(profile, models);
  } catch (err) {
    if (ctx.state.signal.aborted) throw err;
    const reason = isProxyError(err) ? redactSecrets(err.message) : String(err);
    logger.info({ requestId: ctx.state.requestId, reason }, "provider model list unavailable; answering the profile's list");
    ctx.set(modelsSourceHeader, 'profile');
    ctx.body = modelList(profile);
  }
}

export function registerDirect(router: ProxyRouter, services: Services): void {
  const client = new ProviderClient(services);
  services.onClose(() => client.close());
  const { api } = services.profile;

  const forwardPost = (path: string) => async (ctx: ProxyContext) => {
    const body = ctx.state.body as Record<string, unknown>;
    if (typeof body.model === 'string') ctx.state.model = body.model;
    ctx.state.stream = body.stream === true;
    await forwardToProvider(ctx, services, client, 'POST', path);
  };
  addRoute(router, services, { method: 'POST', path: '/api/v1/messages', mode: 'direct', json: true, handler: forwardPost(api.messagesPath) });
  addRoute(router, services, {
    method: 'POST',
    path: '/api/v1/messages/count_tokens',
    mode: 'direct',
    json: true,
    handler: forwardPost(`${api.messagesPath}/count_tokens`),
  });
  addRoute(router, services, {
    method: 'GET',
    path: '/api/v1/models',
    mode: 'direct',
    // One naming scheme for users (docs/clients.md "Model ids"): the provider's list, shown with neutral ids, in
    // objects both SDK families read; provider ids stay accepted as input.
    handler: (ctx) => listModels(ctx, services, client),
  });
  addRoute(router, services, {
    method: 'POST',
    path: '/api/v1/chat/completions',
    mode: 'direct',
    json: true,
    handler: (ctx) => chatCompletions(ctx, services, client),
  });
  addRoute(router, services, { method: 'GET', path: '/api/models', mode: 'direct', handler: (ctx) => listModels(ctx, services, client) });
}
