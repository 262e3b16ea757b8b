// Route registration with the facts every route shares: its mode (for the on/off setting and metrics), its
// pattern (metrics label), and whether it takes a JSON body.

import type Router from '@koa/router';
import type { ModeName } from '../config.js';
import { ProxyError } from '../errors.js';
import { jsonBody } from '../http/body.js';
import type { ProxyContext } from '../http/types.js';
import type { ProxyState } from '../http/state.js';
import type { Mode } from '../metrics.js';
import type { Services } from '../services.js';

export interface RouteSpec {
  method: 'GET' | 'POST';
  path: string;
  mode: Mode;
  /** Read and parse a JSON body before the handler (POST routes). */
  json?: boolean;
  handler: (ctx: ProxyContext) => Promise<void>;
}

export type ProxyRouter = Router<ProxyState>;

const modeSetting: Record<ModeName, string> = {
  tool: 'tool mode',
  direct: 'direct mode',
  respapi: 'response-API mode',
};

export function addRoute(router: ProxyRouter, services: Services, spec: RouteSpec): void {
  const body = jsonBody(services.config.bodyLimitBytes, { timeoutMs: services.config.bodyTimeoutMs });
  const handler = async (ctx: ProxyContext) => {
    ctx.state.mode = spec.mode;
    ctx.state.route = spec.path;
    ctx.state.inFlightMode = spec.mode;
    services.metrics.started(spec.mode);
    if (spec.mode !== 'none' && !services.modeOn(spec.mode)) {
      throw new ProxyError('not_found', `${modeSetting[spec.mode]} is off: turn it on with the setting MODES (e.g. MODES=tool,direct,respapi) or in the app's settings`);
    }
    if (spec.json) await body(ctx, () => spec.handler(ctx));
    else await spec.handler(ctx);
  };
  if (spec.method === 'GET') router.get(spec.path, handler);
  else router.post(spec.path, handler);
}
