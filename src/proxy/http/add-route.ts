// Route registration with the facts every route shares, read from its row in the route table (route-table.ts):
// its mode (for the on/off setting and metrics) and its pattern (metrics label); the registrar adds the handler
// and whether it takes a JSON body. A route the table does not declare fails at start-up, loudly.

import type Router from '@koa/router';
import { ProxyError } from '../errors.js';
import { jsonBody } from './body.js';
import type { ProxyContext } from './types.js';
import type { ProxyState } from './state.js';
import type { ErrorShape } from './error-shape.js';
import { modeNames, modeSettingNames, type ModeName } from '../../shared/modes.js';
import { declaredRoute } from '../route-table.js';
import type { Services } from '../services.js';

interface RouteSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** A path declared in route-table.ts. */
  path: string;
  /** Read and parse a JSON body before the handler (POST routes). */
  json?: boolean;
  handler: (ctx: ProxyContext) => Promise<void>;
  /** The route's own error shape (a wire format's), from the moment it is matched: a bad JSON body included. */
  errorShape?: ErrorShape;
  /** The mode that answers, for a row whose mode is a setting's (`modeBySetting`: the Ollama listener's chats). */
  mode?: ModeName;
}

export type ProxyRouter = Router<ProxyState>;

export function addRoute(router: ProxyRouter, services: Services, spec: RouteSpec): void {
  const decl = declaredRoute(spec.method, spec.path);
  if (spec.mode !== undefined && !decl.modeBySetting)
    throw new Error(`route-table.ts fixes the mode of ${spec.method} ${spec.path}; a registrar cannot choose it`);
  const mode = spec.mode ?? decl.mode;
  const path = decl.path;
  const body = jsonBody(services.config.bodyLimitBytes, { timeoutMs: services.config.bodyTimeoutMs });
  // A plain function, not an async one: the router's koa-compose turns a throw into a rejection, and an async
  // wrapper would add two promises to every request's path (docs/http.md "Middleware order").
  const handler = (ctx: ProxyContext): Promise<void> => {
    ctx.state.mode = mode;
    ctx.state.route = path;
    ctx.state.inFlightMode = mode;
    if (spec.errorShape) ctx.state.errorShape = spec.errorShape;
    services.metrics.started(mode);
    if (mode !== 'none' && !services.modeOn(mode)) {
      throw new ProxyError(
        'not_found',
        `${modeSettingNames[mode]} is off: turn it on with the setting MODES (e.g. MODES=${modeNames.join(',')}) or in the app's settings`,
      );
    }
    return spec.json ? body(ctx, () => spec.handler(ctx)) : spec.handler(ctx);
  };
  if (spec.method === 'GET') router.get(path, handler);
  else if (spec.method === 'DELETE') router.delete(path, handler);
  else router.post(path, handler);
}
