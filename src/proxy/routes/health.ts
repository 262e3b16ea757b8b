// GET /health, /health/detailed (docs/interface.md "Health record") and /metrics ("Metrics"). Health answers from the
// probe's cached snapshot and never waits on a process.

import { ProxyError } from '../errors.js';
import {
  basicHealth,
  detailedHealth,
  httpStatusOf,
  type HealthView,
  type ServerFigures,
} from '../health/health-record.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from '../http/add-route.js';

interface HealthParts {
  /** The port actually bound (differs from config.port when that is 0); undefined before listening. */
  port(): number | undefined;
  /** The components' own figures for /health/detailed (components.ts), as this caller may see them. */
  extras(view: HealthView): Record<string, unknown>;
}

function figures(services: Services, parts: HealthParts): ServerFigures {
  const { config, metrics } = services;
  return {
    service: 'assistant-proxy',
    version: services.version,
    host: config.host,
    port: parts.port() ?? config.port,
    logLevel: config.logLevel,
    corsEnabled: config.corsOrigins.length > 0,
    startedAt: services.startedAt,
    now: services.deps.now(),
    requestsProcessed: metrics.requestsTotal,
    errors: metrics.errorsTotal,
    cliRequired: services.modeOn('tool'),
  };
}

export function registerHealth(router: ProxyRouter, services: Services, parts: HealthParts): void {
  addRoute(router, services, {
    method: 'GET',
    path: '/health',
    handler: async (ctx) => {
      const record = basicHealth(services.probe.snapshot(), figures(services, parts), services.profile);
      ctx.status = httpStatusOf(record.status);
      ctx.body = record;
    },
  });
  addRoute(router, services, {
    method: 'GET',
    path: '/health/detailed',
    handler: async (ctx) => {
      // Without the owner's key: no e-mail, paths or session ids (another local user may be asking).
      const owner = ctx.state.accessKeyPresented === true;
      const record = detailedHealth(
        services.probe.snapshot(),
        figures(services, parts),
        services.profile,
        parts.extras({ owner }),
        { owner },
      );
      ctx.status = httpStatusOf(record.status);
      ctx.body = record;
    },
  });
  addRoute(router, services, {
    method: 'GET',
    path: '/metrics',
    handler: async (ctx) => {
      if (!services.config.metricsEnabled)
        throw new ProxyError(
          'not_found',
          'Monitoring is off: set METRICS_ENABLED=true (or --metrics) to serve /metrics',
        );
      const snap = services.probe.snapshot();
      services.metrics.cliStatus.set(snap.cli.status === 'healthy' && snap.auth.loggedIn ? 1 : 0);
      ctx.type = services.metrics.registry.contentType;
      ctx.body = await services.metrics.registry.metrics();
    },
  });
}
