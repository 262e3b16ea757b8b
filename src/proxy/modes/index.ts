// The chat modes' face for the rest of the proxy: each Mode (modes/mode.ts), by the name route-table rows give, built
// once per registrar over the backends components.ts made (routes/wire-routes.ts asks for them), and each mode's own
// routes beside its chat rows (the composition root, server.ts, registers them). Adding a mode: its folder, one entry
// here, and its rows in route-table.ts.

import type { ProxyRouter } from '../http/add-route.js';
import type { Backend } from '../chat/backend.js';
import type { ListedCatalog } from '../models/live-catalog.js';
import type { Services } from '../services.js';
import type { ProviderClient } from '../upstream/provider-client.js';
import { directMode } from './direct/prepare.js';
import { registerDirect } from './direct/routes.js';
import type { ChatMode, Mode } from './mode.js';
import { toolMode } from './tool/prepare.js';
import { registerTool } from './tool/routes.js';

export interface ModeParts {
  cli: Backend;
  direct: Backend;
  catalog: ListedCatalog;
}

export function chatModes(services: Services, parts: ModeParts): ReadonlyMap<string, Mode> {
  const modes: Record<ChatMode, Mode> = {
    tool: toolMode(parts.cli, parts.catalog, services.profile),
    direct: directMode(parts.direct, parts.catalog, services),
  };
  return new Map(Object.entries(modes));
}

/** What the modes' own routes use: the provider client and the catalog, which resolves each request's model. */
interface ModeRouteParts {
  provider: ProviderClient;
  catalog: ListedCatalog;
}

/** Each chat mode's own routes, outside its chat rows: tool mode's token counts (the provider's own count, through
 * the CLI's login), direct mode's byte-level forwarded messages and token counts. */
export function registerModeRoutes(router: ProxyRouter, services: Services, parts: ModeRouteParts): void {
  registerTool(router, services, parts);
  registerDirect(router, services, parts);
}
