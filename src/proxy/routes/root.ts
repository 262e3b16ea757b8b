// GET / : a small plain-text page, "Assistant Proxy is running", with the base URL of each mode that is on.
// Local model servers answer their root this way, and users and scripts check it first (docs/lessons.md "First run");
// before this, the root was a JSON 404. The same list is the start-up summary's (cli.ts), so both say the same.

import type { ModeName } from '../../shared/modes.js';
import type { Services } from '../services.js';
import { sdkBaseUrls } from '../../shared/endpoints.js';
import { addRoute, type ProxyRouter } from '../http/add-route.js';

export interface BaseUrl {
  label: string;
  url: string;
  note?: string;
}

/** The base URLs a client is pointed at, for the modes that are on, each labelled with the SDK it is for (the same
 * list the window and the tray copy: src/shared/endpoints.ts). */
export function baseUrls(origin: string, modes: readonly ModeName[]): BaseUrl[] {
  const out: BaseUrl[] = sdkBaseUrls(origin, modes).map(({ label, url, note }) => ({ label, url, note }));
  out.push({ label: 'health', url: `${origin}/health/detailed` });
  return out;
}

/** Aligned "label  url  (note)" lines. */
export function formatBaseUrls(urls: BaseUrl[], indent = '  '): string[] {
  const width = Math.max(...urls.map((u) => u.label.length)) + 2;
  return urls.map((u) => `${indent}${`${u.label}:`.padEnd(width)}${u.url}${u.note ? `  (${u.note})` : ''}`);
}

export function rootPage(origin: string, modes: readonly ModeName[], version: string): string {
  return [
    'Assistant Proxy is running.',
    '',
    ...formatBaseUrls(baseUrls(origin, modes), ''),
    '',
    `Version ${version}. Any API key works (the proxy uses your CLI's login); see the README for client settings.`,
    '',
  ].join('\n');
}

export function registerRoot(router: ProxyRouter, services: Services): void {
  addRoute(router, services, {
    method: 'GET',
    path: '/',
    handler: async (ctx) => {
      ctx.type = 'text/plain; charset=utf-8';
      // The Host header has passed the host guard (or the access key beyond loopback), so it is safe to echo.
      ctx.body = rootPage(`${ctx.protocol}://${ctx.host}`, services.config.modes, services.version);
    },
  });
}
