// Unknown paths get 404 and known paths with the wrong method 405 with an Allow header, in the family's shape.

import type Router from '@koa/router';
import { ProxyError } from '../errors.js';
import type { ProxyMiddleware } from './types.js';

export function fallthrough(router: Router): ProxyMiddleware {
  return async (ctx, next) => {
    await next();
    if (ctx.status !== 404 || ctx.body !== undefined) return;
    // A route matched but left no answer: its client went away before there was one to give (there is no one to
    // tell), or it is our own bug. Either way the path is not unknown, so no "Unknown endpoint" is logged.
    if (ctx._matchedRoute !== undefined) {
      if (ctx.state.signal?.aborted || ctx.req.destroyed) return;
      throw new ProxyError('internal', `The route ${ctx.method} ${ctx.path} produced no answer; see the proxy log`);
    }
    const methods = new Set<string>();
    for (const layer of router.stack) {
      if (layer.methods.length > 0 && layer.match(ctx.path)) for (const m of layer.methods) methods.add(m);
    }
    if (methods.size > 0 && !methods.has(ctx.method)) {
      const allow = [...methods].filter((m) => m !== 'HEAD').join(', ');
      throw new ProxyError(
        'method_not_allowed',
        `Method ${ctx.method} is not allowed on ${ctx.originalUrl.split('?')[0]}; use ${allow}`,
        { headers: { allow } },
      );
    }
    // The path as the client sent it (a listener may route under an internal prefix: ollama/app.ts).
    throw new ProxyError(
      'not_found',
      `Unknown endpoint ${ctx.method} ${ctx.originalUrl.split('?')[0]}. See README for the endpoints this proxy serves.`,
    );
  };
}
