// Direct mode routes (docs/interface.md "Modes"; docs/direct-mode.md). Registered by server.ts (through modes/index.ts) with what components.ts
// built once per proxy: the ProviderClient (keep-alive pool + the CLI credential), the DirectBackend over it, and
// the model catalog, which resolves each request's model name once, here (MODEL_ALIASES included):
//   POST /api/v1/messages                byte-level reverse proxy to the provider (modes/direct/forward.ts); also
//                                        /api/messages, for SDKs that append /messages to a base URL of /api
//   POST /api/v1/messages/count_tokens   the same, for clients that count tokens first (and /api/messages/…)
//   POST /api/v1/chat/completions,       the compatible format and the Responses API: route-table rows that name
//        /api/v1/responses               a format, registered over DirectBackend by routes/wire-routes.ts
// The model lists of /api/models and /api/v1/models are routes/models.ts's: the one live catalog every route shows.

import type { ProxyContext } from '../../http/types.js';
import type { ModelCatalog } from '../../models/model-catalog.js';
import type { Services } from '../../services.js';
import { forwardToProvider } from './forward.js';
import type { ProviderClient } from '../../upstream/provider-client.js';
import { addRoute, type ProxyRouter } from '../../http/add-route.js';

interface DirectParts {
  provider: ProviderClient;
  catalog: ModelCatalog;
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
    await forwardToProvider(ctx, services, client, 'POST', path, {
      providerModel: model === undefined ? undefined : catalog.providerModel(model),
      servedName,
    });
  };
  // /api/messages: SDKs that append /messages to a base URL of /api (docs/clients.md).
  for (const base of ['/api/v1', '/api']) {
    addRoute(router, services, {
      method: 'POST',
      path: `${base}/messages`,
      json: true,
      handler: forwardPost(api.messagesPath),
    });
    addRoute(router, services, {
      method: 'POST',
      path: `${base}/messages/count_tokens`,
      json: true,
      handler: forwardPost(`${api.messagesPath}/count_tokens`),
    });
  }
}
