// Response-API mode routes (issue 5). Registered by server.ts; this module owns every path of the mode.

import type { Services } from '../services.js';
import type { ProxyRouter } from './define.js';

export function registerRespapi(_router: ProxyRouter, _services: Services): void {
  // Filled in by the Response-API mode work.
}
