// The chat modes (modes/mode.ts), by the name route-table rows give, built once per registrar over the backends
// components.ts made. Adding a mode: its folder, one entry here, and its rows in route-table.ts.

import type { Backend } from '../chat/backend.js';
import type { ListedCatalog } from '../models/live-catalog.js';
import type { Services } from '../services.js';
import { directMode } from './direct/prepare.js';
import type { ChatMode, Mode } from './mode.js';
import { toolMode } from './tool/prepare.js';

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
