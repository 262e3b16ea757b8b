// Tool mode routes (docs/interface.md "Modes", "Endpoints"; docs/tool-mode.md): the user's logged-in assistant CLI
// answers, through CliBackend. The chat routes (native chat completions, compatible chat completions, native messages,
// the Responses API) are route-table rows that name a format; routes/wire-routes.ts registers them over the CLI
// backend. Here:
//   POST /v1/messages/count_tokens, /cc/…    the provider's own count, through the CLI's login

import type { ListedCatalog } from '../../models/live-catalog.js';
import type { Services } from '../../services.js';
import { addRoute, type ProxyRouter } from '../../http/add-route.js';
import { forwardToProvider } from '../direct/forward.js';
import type { ProviderClient } from '../../upstream/provider-client.js';
import { validate } from '../../formats/validate.js';
import { z } from 'zod';

interface ToolParts {
  catalog: ListedCatalog;
  /** For token counts: the CLI has no way to count (docs/tool-mode.md). */
  provider: ProviderClient;
}

/** A token-count body: its model is resolved like a chat's; the rest goes to the provider as sent. */
const countTokensBodySchema = z.looseObject({ model: z.string().min(1), messages: z.array(z.unknown()) });

export function registerTool(router: ProxyRouter, services: Services, parts: ToolParts): void {
  const { profile } = services;
  const { catalog, provider } = parts;
  // Token counts come from the provider itself, through the same OAuth login as direct mode (never an estimate).
  for (const path of ['/v1/messages/count_tokens', '/messages/count_tokens', '/cc/v1/messages/count_tokens']) {
    addRoute(router, services, {
      method: 'POST',
      path,
      json: true,
      handler: async (ctx) => {
        const body = validate(countTokensBodySchema, ctx.state.body);
        const resolved = await catalog.resolveFresh(body.model);
        ctx.state.model = body.model;
        ctx.state.rawBody = Buffer.from(JSON.stringify({ ...body, model: resolved.providerId }));
        await forwardToProvider(ctx, services, provider, 'POST', `${profile.api.messagesPath}/count_tokens`);
      },
    });
  }
}
