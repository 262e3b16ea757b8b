// Model lists and single models (SPEC.md §2.6). Every list and answer shows the neutral `assistant-` ids; what a
// requested id may be (listed id, provider id, CLI alias, user alias) is models/model-catalog.ts's.
//   GET /v1/models, /compat/v1/models, /cc/v1/models, /sdk/models       the profile's known models
//   GET the same + /{id}, and /api/v1/models/{id}, /api/models/{id}     one model; unknown ids are 404
//                                                                         model_not_found in the route's shape
// /api/models and /api/v1/models (the lists of direct mode) are the direct-mode module's; they ask the provider.
//
// A model object carries the fields of both formats (docs/clients.md "Model ids"): the compatible ones of §2.6
// (id, object, created, owned_by), read by OpenAI-format SDKs, and the native ones (type, display_name,
// created_at), read by the native SDK's models.retrieve. The names do not collide.

import type { ModelCatalog } from '../models/model-catalog.js';
import type { ModelInfo, Profile } from '../profile.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from './define.js';

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
  type: 'model';
  display_name: string;
  created_at: string;
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
  };
}

export function modelList(profile: Profile, models = profile.models): { object: 'list'; data: ModelObject[]; has_more: false; first_id: string | null; last_id: string | null } {
  return {
    object: 'list',
    data: models.map((m) => modelObject(profile, m)),
    // The native SDK's list pagination reads these; the whole list is always one page.
    has_more: false,
    first_id: models[0]?.id ?? null,
    last_id: models.at(-1)?.id ?? null,
  };
}

const listPaths = ['/v1/models', '/compat/v1/models', '/sdk/models', '/cc/v1/models'];

export function registerModels(router: ProxyRouter, services: Services, catalog: ModelCatalog): void {
  const { profile } = services;
  for (const path of listPaths) {
    addRoute(router, services, {
      method: 'GET',
      path,
      handler: async (ctx) => {
        ctx.body = modelList(profile);
      },
    });
  }
  for (const path of [...listPaths, '/api/v1/models', '/api/models']) {
    addRoute(router, services, {
      method: 'GET',
      path: `${path}/:id`,
      handler: async (ctx) => {
        // An alias answers with the model it stands for, so a client sees the id that will serve it.
        const resolved = catalog.resolve(String(ctx.params.id));
        ctx.body = modelObject(profile, resolved.info);
      },
    });
  }
}
