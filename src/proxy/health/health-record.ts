// Health records (SPEC.md §2.8) as pure functions of the probe snapshot and server figures, with the status
// mapping of §3 (healthy 200, unhealthy 503, error 500) and the error texts of §7.4.

import type { Profile } from '../profile.js';
import type { CliSnapshot } from './cli-probe.js';

export type OverallStatus = 'healthy' | 'unhealthy' | 'error';

export interface ServerFigures {
  service: string;
  version: string;
  host: string;
  port: number;
  logLevel: string;
  corsEnabled: boolean;
  startedAt: number;
  now: number;
  requestsProcessed: number;
  errors: number;
  /** Whether tool mode (which needs the CLI) is on; when off, the CLI's state does not make the service unhealthy. */
  cliRequired: boolean;
}

export interface BasicHealth {
  status: OverallStatus;
  service: string;
  timestamp: string;
  version?: string;
  error?: string;
  details?: Record<string, unknown>;
}

export function formatUptime(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  return `${h}h ${m}m ${s}s`;
}

export function httpStatusOf(status: OverallStatus): number {
  return status === 'healthy' ? 200 : status === 'unhealthy' ? 503 : 500;
}

export function basicHealth(snap: CliSnapshot, fig: ServerFigures, profile: Profile): BasicHealth {
  const base = { service: fig.service, timestamp: new Date(fig.now).toISOString() };
  if (fig.cliRequired) {
    if (snap.cli.status === 'unknown') {
      // The first background probe has not finished (it is bounded to a few seconds): not healthy yet.
      return { status: 'unhealthy', ...base, error: 'CLI check in progress', details: { [profile.cli.healthDetailsKey]: 'checking' } };
    }
    if (snap.cli.status === 'unhealthy') {
      return { status: 'unhealthy', ...base, error: 'CLI not found in PATH', details: { searched_paths: snap.cli.searchedPaths, remedy: profile.cli.installHint } };
    }
    if (snap.cli.status === 'error') {
      return { status: 'error', ...base, error: `CLI check failed: ${snap.cli.error ?? 'unknown error'}`, details: { path: snap.cli.path } };
    }
    if (snap.auth.status === 'unauthenticated') {
      return { status: 'unhealthy', ...base, error: 'CLI authentication failed', details: { [profile.cli.healthDetailsKey]: 'not_authenticated', remedy: profile.cli.loginHint } };
    }
    if (snap.auth.status === 'error') {
      return { status: 'error', ...base, error: `CLI authentication check failed: ${snap.auth.error ?? 'unknown error'}`, details: { [profile.cli.healthDetailsKey]: 'unknown' } };
    }
  }
  return { status: 'healthy', ...base, version: fig.version };
}

export function detailedHealth(snap: CliSnapshot, fig: ServerFigures, profile: Profile, extras: Record<string, unknown> = {}) {
  const basic = basicHealth(snap, fig, profile);
  return {
    ...basic,
    version: fig.version,
    components: {
      assistant_cli: {
        status: snap.cli.status === 'unknown' ? 'error' : snap.cli.status,
        path: snap.cli.path ?? '',
        version: snap.cli.version ?? '',
        ...(snap.cli.status === 'healthy' ? { authenticated: snap.auth.loggedIn } : {}),
        ...(snap.lastCheck ? { last_check: snap.lastCheck } : {}),
        ...(snap.cli.status !== 'healthy' ? { searched_paths: snap.cli.searchedPaths } : {}),
      },
      api_server: {
        status: 'healthy',
        uptime: formatUptime(fig.now - fig.startedAt),
        port: fig.port,
        host: fig.host,
        requests_processed: fig.requestsProcessed,
        errors: fig.errors,
      },
      authentication: {
        status: snap.auth.status === 'unknown' ? 'error' : snap.auth.status,
        logged_in: snap.auth.loggedIn,
        ...(snap.auth.user ? { user: snap.auth.user } : {}),
        ...(snap.auth.expires ? { expires: snap.auth.expires } : {}),
      },
      ...extras,
    },
    configuration: { host: fig.host, port: fig.port, log_level: fig.logLevel.toUpperCase(), cors_enabled: fig.corsEnabled },
  };
}
