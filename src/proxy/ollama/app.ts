// The Ollama listener's app (docs/ollama.md): a second port, off unless OLLAMA_PORT is set, serving the Ollama API for
// the editors and plugins that speak only it. It is the same proxy: the same bind address, access key, host and
// cross-site guards, rate limit (one budget per client across both ports), request log, metrics and ledger; only
// its routes differ (routes.ts). Each request's path gets the internal prefix /ollama before anything reads it, so its
// routes have rows of their own in the one route table (route-table.ts) beside the main listener's same paths
// (/v1/models, /v1/chat/completions), their own labels in metrics and the ledger, and the `ollama` error family.
// The composition root (server.ts) makes it with the main listener's own middleware chain; the listeners
// (listen/listeners.ts) bind its port after the main one and, when it is taken, run on without it.

import Koa from 'koa';
import Router from '@koa/router';
import { fallthrough } from '../http/fallthrough.js';
import type { ProxyState } from '../http/state.js';
import type { ProxyMiddleware } from '../http/types.js';
import type { Services } from '../services.js';
import { registerOllama, type OllamaParts } from './routes.js';

/** The prefix the listener's routes are declared under (route-table.ts). */
const ollamaPrefix = '/ollama';

/** Routes the request under the listener's prefix; the client's own path stays in ctx.originalUrl. */
function ollamaMount(): ProxyMiddleware {
  return (ctx, next) => {
    ctx.path = ctx.path === '/' ? ollamaPrefix : `${ollamaPrefix}${ctx.path}`;
    return next();
  };
}

/**
 * The listener's Koa app: the prefix first, then the main listener's own middleware chain (`chain`, the same
 * function objects, so the rate limit's windows are shared), then its routes.
 */
export function createOllamaApp(
  services: Services,
  parts: OllamaParts,
  chain: readonly ProxyMiddleware[],
): Koa<ProxyState> {
  const app = new Koa<ProxyState>({ proxy: false });
  app.silent = true;
  const router = new Router<ProxyState>();
  registerOllama(router, services, parts);
  app.use(ollamaMount());
  for (const middleware of chain) app.use(middleware);
  app.use(fallthrough(router));
  app.use(router.routes());
  return app;
}
