// Health records (docs/interface.md "Health record") as pure functions of the probe snapshot and server figures, with
// the status mapping of "Health states" (healthy 200, unhealthy 503, error 500) and the error texts of "Health errors".

import type { Profile } from '../profile.js';
import type { CliSnapshot } from './cli-probe.js';

type OverallStatus = 'healthy' | 'unhealthy' | 'error';

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

interface BasicHealth {
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

/** An error text with its file paths cut out, for the open record (a path shows the owner's home directory). */
export function withoutPaths(text: string): string {
  return text.replace(/(?:[A-Za-z]:)?(?:[\\/][^\s'"`\\/]+)+[\\/]?/g, '<path>');
}

export function basicHealth(snap: CliSnapshot, fig: ServerFigures, profile: Profile): BasicHealth {
  const base = { service: fig.service, timestamp: new Date(fig.now).toISOString() };
  if (fig.cliRequired) {
    if (snap.cli.status === 'unknown') {
      // The first background probe has not finished (it is bounded to a few seconds): not healthy yet.
      return {
        status: 'unhealthy',
        ...base,
        error: 'CLI check in progress',
        details: { [profile.cli.healthDetailsKey]: 'checking' },
      };
    }
    if (snap.cli.status === 'unhealthy') {
      // No path in this open answer (another local user reads it): the searched paths are in /health/detailed.
      return {
        status: 'unhealthy',
        ...base,
        error: 'CLI not found in PATH',
        details: { remedy: profile.cli.installHint },
      };
    }
    if (snap.cli.status === 'error') {
      return {
        status: 'error',
        ...base,
        error: `CLI check failed: ${withoutPaths(snap.cli.error ?? 'unknown error')}`,
        details: { [profile.cli.healthDetailsKey]: 'error' },
      };
    }
    if (snap.auth.status === 'unauthenticated') {
      return {
        status: 'unhealthy',
        ...base,
        error: 'CLI authentication failed',
        details: { [profile.cli.healthDetailsKey]: 'not_authenticated', remedy: profile.cli.loginHint },
      };
    }
    if (snap.auth.status === 'error') {
      return {
        status: 'error',
        ...base,
        error: `CLI authentication check failed: ${snap.auth.error ?? 'unknown error'}`,
        details: { [profile.cli.healthDetailsKey]: 'unknown' },
      };
    }
  }
  return { status: 'healthy', ...base, version: fig.version };
}

/** What /health/detailed leaves out for a caller without the owner's key: the account's e-mail, paths under the home
 * directory, and the response-API session ids (docs/security.md "The owner's key"). */
const withheldNote = "the account e-mail, paths and session ids are shown only with the owner's key (docs/security.md)";

function withoutSessionIds(extras: Record<string, unknown>): Record<string, unknown> {
  const sessions = extras.respapi_sessions as { sessions?: unknown } | undefined;
  if (!sessions || typeof sessions !== 'object' || !('sessions' in sessions)) return extras;
  const { sessions: _ids, ...counts } = sessions;
  return { ...extras, respapi_sessions: counts };
}

/** Who reads a detailed record: the owner (the owner's key presented) sees paths and the account's e-mail. */
export interface HealthView {
  owner: boolean;
}

export function detailedHealth(
  snap: CliSnapshot,
  fig: ServerFigures,
  profile: Profile,
  extras: Record<string, unknown> = {},
  view: HealthView = { owner: true },
) {
  const basic = basicHealth(snap, fig, profile);
  const owner = view.owner;
  if (!owner) extras = withoutSessionIds(extras);
  return {
    ...basic,
    version: fig.version,
    components: {
      assistant_cli: {
        status: snap.cli.status === 'unknown' ? 'error' : snap.cli.status,
        path: owner ? (snap.cli.path ?? '') : '',
        version: snap.cli.version ?? '',
        ...(snap.cli.status === 'healthy' ? { authenticated: snap.auth.loggedIn } : {}),
        ...(snap.lastCheck ? { last_check: snap.lastCheck } : {}),
        ...(snap.cli.status !== 'healthy' && owner ? { searched_paths: snap.cli.searchedPaths } : {}),
        ...(snap.cli.status === 'error' && owner && snap.cli.error ? { error: snap.cli.error } : {}),
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
        ...(snap.auth.user && owner ? { user: snap.auth.user } : {}),
        ...(snap.auth.expires ? { expires: snap.auth.expires } : {}),
      },
      ...extras,
    },
    configuration: {
      host: fig.host,
      port: fig.port,
      log_level: fig.logLevel.toUpperCase(),
      cors_enabled: fig.corsEnabled,
    },
    ...(owner ? {} : { withheld: withheldNote }),
  };
}
