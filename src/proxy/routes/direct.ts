// Direct mode routes (SPEC.md §1, §4, §5; docs/direct-mode.md). Registered by server.ts with what components.ts
// built once per proxy: the ProviderClient (keep-alive pool + the CLI credential), the DirectBackend over it, and
// the model catalog, which resolves each request's model name once, here (MODEL_ALIASES included):
//   POST /api/v1/messages                byte-level reverse proxy to the provider (upstream/forward.ts); also
//                                        /api/messages, for SDKs that append /messages to a base URL of /api
//   POST /api/v1/messages/count_tokens   the same, for clients that count tokens first (and /api/messages/…)
//   POST /api/v1/chat/completions        compatible format, answered by the one answer path (answer-chat.ts) over
//                                        DirectBackend (full translation both ways)
// The model lists of /api/models and /api/v1/models are routes/models.ts's: the one live catalog every route shows.

import type { Backend } from '../backends/backend.js';
import { compatChatRequestSchema } from '../formats/compat.js';
import { validate } from '../formats/validate.js';
import type { ProxyContext } from '../http/types.js';
import type { ModelCatalog } from '../models/model-catalog.js';
import type { Services } from '../services.js';
import { compatRequestToNative } from '../translate/compat-request-to-native.js';
import { clientAuthOf, type ClientAuth } from '../upstream/client-auth.js';
import { forwardToProvider } from '../upstream/forward.js';
import type { ProviderClient } from '../upstream/provider-client.js';
import { answerChat } from './answer-chat.js';
import { addRoute, type ProxyRouter } from './define.js';

/** The provider expects a key in x-api-key; a compatible-format client can only send it as a bearer token. */
function asProviderKey(auth: ClientAuth): ClientAuth {
  return auth.kind === 'api-key' ? { kind: 'api-key', header: 'x-api-key', value: auth.value.replace(/^bearer\s+/i, '') } : auth;
}

export interface DirectParts {
  provider: ProviderClient;
  backend: Backend;
  catalog: ModelCatalog;
}

async function chatCompletions(ctx: ProxyContext, services: Services, parts: DirectParts): Promise<void> {
  const { profile, config } = services;
  const body = validate(compatChatRequestSchema, ctx.state.body);
  const { request, warnings, ignored } = compatRequestToNative(body, {
    defaultMaxTokens: profile.api.defaultMaxTokens,
    thinking: { budgets: profile.api.thinkingBudgets, min: profile.api.minThinkingBudget },
  });
  const { stream, ...nativeRequest } = request;
  nativeRequest.model = parts.catalog.providerModel(body.model);
  const clientFlags = ctx.get(profile.api.oauthBetaHeader);
  await answerChat(ctx, services, parts.backend, {
    request: nativeRequest,
    output: 'compat',
    stream: stream === true,
    requestedModel: body.model,
    // Completions and chunks name the model as the client sent it.
    publicModel: body.model,
    servedName: (served) => parts.catalog.publicName(served),
    ignored,
    warnings,
    includeUsage: body.stream_options?.include_usage === true,
    upstream: {
      auth: asProviderKey(clientAuthOf(ctx.headers, profile, config.accessKey)),
      headers: clientFlags ? { [profile.api.oauthBetaHeader.toLowerCase()]: clientFlags } : undefined,
    },
  });
}

export function registerDirect(router: ProxyRouter, services: Services, parts: DirectParts): void {
  const { api } = services.profile;
  const { provider: client, catalog } = parts;
  const servedName = (served: string) => catalog.publicName(served);

  const forwardPost = (path: string) => async (ctx: ProxyContext) => {
    const body = ctx.state.body as Record<string, unknown>;
    const model = typeof body.model === 'string' ? body.model : undefined;
    if (model !== undefined) ctx.state.model = model;
    ctx.state.stream = body.stream === true;
    await forwardToProvider(ctx, services, client, 'POST', path, { providerModel: model === undefined ? undefined : catalog.providerModel(model), servedName });
  };
  // /api/messages: SDKs that append /messages to a base URL of /api (docs/clients.md).
  for (const base of ['/api/v1', '/api']) {
    addRoute(router, services, { method: 'POST', path: `${base}/messages`, json: true, handler: forwardPost(api.messagesPath) });
    addRoute(router, services, { method: 'POST', path: `${base}/messages/count_tokens`, json: true, handler: forwardPost(`${api.messagesPath}/count_tokens`) });
  }
  addRoute(router, services, {
    method: 'POST',
    path: '/api/v1/chat/completions',
    json: true,
    handler: (ctx) => chatCompletions(ctx, services, parts),
  });
}
