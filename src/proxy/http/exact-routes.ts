// The router, with the routes that have no parameters found by one lookup of method and path (docs/http.md
// "Finding the route"). @koa/router finds a request's route by testing the request's path against every route's
// pattern (about forty here), and then builds a middleware chain for it on every request: work on every chat
// request's way to its upstream request that grows with the route table.
// The result is the router's own: a path that is not exactly a declared pattern (a trailing slash, another
// letter case, a parameter) or a pattern another route's pattern also matches goes to the router as before.

import type Router from '@koa/router';
import type { ProxyMiddleware } from './types.js';

interface Exact {
  path: string;
  run: ProxyMiddleware;
}

/** The router's middleware, with a Map from method and path to the route for each pattern without parameters. */
export function exactRoutes(router: Router): ProxyMiddleware {
  const routes = router.routes() as unknown as ProxyMiddleware;
  const byMethod = new Map<string, Map<string, Exact>>();
  for (const layer of router.stack) {
    // One handler per route, as routes/define.ts registers them; anything else stays with the router.
    const path = layer.path;
    if (
      typeof path !== 'string' ||
      layer.paramNames.length > 0 ||
      layer.methods.length === 0 ||
      layer.stack.length !== 1
    )
      continue;
    // Only where the router would run this layer alone: no other pattern (a parameter route, a prefix
    // middleware) matches the same path.
    if (router.stack.some((other) => other !== layer && other.match(path))) continue;
    const run = layer.stack[0] as unknown as ProxyMiddleware;
    for (const method of layer.methods) {
      const paths = byMethod.get(method) ?? byMethod.set(method, new Map()).get(method)!;
      paths.set(path, { path, run });
    }
  }
  const middleware: ProxyMiddleware & { router?: Router } = (ctx, next) => {
    const route = byMethod.get(ctx.method)?.get(ctx.path);
    if (route === undefined) return routes(ctx, next);
    // What the router sets on a matched request, as far as anything here reads it (the 404/405 fallthrough).
    ctx._matchedRoute = route.path;
    ctx.routerPath = route.path;
    ctx.params = {};
    return route.run(ctx, next);
  };
  // As on the router's own middleware: what is registered stays readable from the app (route-table.test.ts).
  middleware.router = router;
  return middleware;
}
