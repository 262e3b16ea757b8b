// GET and DELETE {base}/responses/{id} (docs/responses-store.md): a kept response read back or removed, on every
// Responses base URL, in the compatible error shape. An id that is not kept (never, expired, removed, or sent with
// store:false) is a 404 as the provider words it.

import { ProxyError } from '../errors.js';
import type { ProxyContext } from '../http/types.js';
import { routeTable } from '../route-table.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from '../http/add-route.js';
import type { ResponseChains } from './chain-step.js';

function notFound(id: string): ProxyError {
  return new ProxyError('not_found', `Response with id '${id.slice(0, 80)}' not found.`, { field: 'id' });
}

export function registerStoredResponses(router: ProxyRouter, services: Services, chains: ResponseChains): void {
  for (const decl of routeTable) {
    if (!decl.path.endsWith('/responses/:id')) continue;
    const handler =
      decl.method === 'GET'
        ? async (ctx: ProxyContext) => {
            const record = await chains.store.get(ctx.params.id);
            if (!record) throw notFound(ctx.params.id);
            ctx.body = record.response;
          }
        : async (ctx: ProxyContext) => {
            if (!chains.store.delete(ctx.params.id)) throw notFound(ctx.params.id);
            ctx.body = { id: ctx.params.id, object: 'response', deleted: true };
          };
    addRoute(router, services, { method: decl.method, path: decl.path, handler });
  }
}
