// Model lists and single models (docs/clients.md "Model ids", docs/configuration.md "Models"). Every list shows the
// one live catalog (models/live-catalog.ts: the provider's list, else its cached copy, else the built-in fallback),
// in the neutral `assistant-` ids, so every route's list agrees; a header names which catalog it is.
//   GET /v1/models, /compat/v1/models, /cc/v1/models, /sdk/models      the catalog (tool mode's paths)
//   GET /api/models, /api/v1/models                                    the same catalog (direct mode's paths)
//   GET any of them + /{id}                                            one model; an alias answers the model it
//                                                                       stands for; unknown ids are 404
//                                                                       model_not_found in the route's shape
//
// A model object carries the fields of both formats (docs/clients.md "Model ids"): the compatible ones (id, object,
// created, owned_by), read by OpenAI-format SDKs, and the native ones (type, display_name, created_at), read by the
// native SDK's models.retrieve; plus, when the catalog knows them, context_length (and max_input_tokens), max_tokens and
// the capabilities in the provider's own shape (thinking, effort, structured_outputs, image_input, pdf_input), as
// health and the window show them. The names do not collide.

import type { ProxyContext } from '../http/types.js';

import type { ListedCatalog } from '../models/live-catalog.js';

import type { Profile } from '../profile.js';
import type { Services } from '../services.js';

import { modelsSourceHeader, providerCapabilities } from '../upstream/provider-models.js';

import { addRoute, type ProxyRouter } from '../http/add-route.js';
import type { ModelInfo } from '../profile-models.js';

interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  type: 'model';
  display_name: string;
  created_at: string;
  /** The input context window in tokens, when known (and under the provider's own name, max_input_tokens). */
  context_length?: number;
  max_input_tokens?: number;
  /** The largest max_tokens the model takes, when known. */
  max_tokens?: number;
  /** What the model takes, in the provider's shape ({supported} per feature), when known. */
  capabilities?: Record<string, unknown>;
}

export function modelObject(profile: Profile, model: ModelInfo): ModelObject {
  return {
    id: model.id,
    object: 'model',
    created: model.created,
    owned_by: profile.ownerName,
    type: 'model',
    display_name: model.id,
    created_at: new Date(model.created * 1000).toISOString(),
    ...(model.contextLength ? { context_length: model.contextLength, max_input_tokens: model.contextLength } : {}),
    ...(model.maxTokens ? { max_tokens: model.maxTokens } : {}),
    ...(model.capabilities ? { capabilities: providerCapabilities(model.capabilities) } : {}),
  };
}

export function modelList(
  profile: Profile,
  models: readonly ModelInfo[],
): { object: 'list'; data: ModelObject[]; has_more: false; first_id: string | null; last_id: string | null } {
  return {
    object: 'list',
    data: models.map((m) => modelObject(profile, m)),
    // The native SDK's list pagination reads these; the whole list is always one page.
    has_more: false,
    first_id: models[0]?.id ?? null,
    last_id: models.at(-1)?.id ?? null,
  };
}

/** Response header with the reason the last read of the provider's list failed (redacted), when it did. */
const modelsErrorHeader = 'x-proxy-models-error';

/** A list asked with Cache-Control: no-cache is read from the provider first, unless a read began this recently. */
const noCacheFloorMs = 5_000;

const modelListPaths = [
  '/v1/models',
  '/compat/v1/models',
  '/sdk/models',
  '/cc/v1/models',
  '/api/v1/models',
  '/api/models',
];

function sourceHeader(ctx: ProxyContext, catalog: ListedCatalog): void {
  const state = catalog.snapshot();
  ctx.set(modelsSourceHeader, state.source);
  // One printable line: the reason is already redacted, and a header cannot hold a line break.
  if (state.lastError) ctx.set(modelsErrorHeader, state.lastError.replace(/[^\x20-\x7e]+/g, ' ').slice(0, 300));
}

export function registerModels(router: ProxyRouter, services: Services, catalog: ListedCatalog): void {
  const { profile } = services;
  for (const path of modelListPaths) {
    addRoute(router, services, {
      method: 'GET',
      path,
      handler: async (ctx) => {
        // A client (diagnose, a reload) that asks for no cached answer gets the provider's list read now.
        if (/no-cache/i.test(ctx.get('cache-control'))) await catalog.refreshUnlessRecent(noCacheFloorMs);
        sourceHeader(ctx, catalog);
        ctx.body = modelList(profile, catalog.models);
      },
    });
    addRoute(router, services, {
      method: 'GET',
      path: `${path}/:id`,
      handler: async (ctx) => {
        // An alias answers with the model it stands for, so a client sees the id that will serve it; an unknown id
        // re-reads the provider's list first (at most once a minute).
        const resolved = await catalog.resolveFresh(String(ctx.params.id));
        sourceHeader(ctx, catalog);
        ctx.body = modelObject(profile, resolved.info);
      },
    });
  }
}
