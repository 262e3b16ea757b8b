// Tool mode routes (issue 3). Registered by server.ts; this module owns every path of the mode.

import type { Services } from '../services.js';
import type { ProxyRouter } from './define.js';

export function registerTool(_router: ProxyRouter, _services: Services): void {
  // Filled in by the Tool mode work.
}
