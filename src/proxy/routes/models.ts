// Model lists (SPEC.md §2.6): /v1/models, /compat/v1/models and /sdk/models answer the profile's known models.
// /api/models (direct mode) is the direct-mode module's; it asks the provider first.

import type { Profile } from '../profile.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from './define.js';

export interface ModelObject {
  id: string;
  object: 'model';
  created: number;
  owned_by: string;
}

export function modelList(profile: Profile, models = profile.models): { object: 'list'; data: ModelObject[] } {
  return { object: 'list', data: models.map((m) => ({ id: m.id, object: 'model', created: m.created, owned_by: profile.ownerName })) };
}

export function registerModels(router: ProxyRouter, services: Services): void {
  for (const path of ['/v1/models', '/compat/v1/models', '/sdk/models', '/cc/v1/models']) {
    addRoute(router, services, {
      method: 'GET',
      path,
      mode: 'none',
      handler: async (ctx) => {
        ctx.body = modelList(services.profile);
      },
    });
  }
}
