// GET / : a small plain-text page, "Assistant Proxy is running", with the base URL of each mode that is on.
// Local model servers answer their root this way, and users and scripts check it first (PEERS.md "First run");
// before this, the root was a JSON 404. The same list is the start-up summary's (cli.ts), so both say the same.

import type { ModeName } from '../config.js';
import type { Services } from '../services.js';
import { addRoute, type ProxyRouter } from './define.js';

export interface BaseUrl {
  label: string;
  url: string;
  note?: string;
}

/** The base URLs a client is pointed at, for the modes that are on (README "Point a client at it"). */
export function baseUrls(origin: string, modes: readonly ModeName[]): BaseUrl[] {
  const out: BaseUrl[] = [];
  if (modes.includes('tool')) {
    out.push({ label: 'native format (tool mode)', url: `${origin}/v1`, note: 'native SDKs take the base without /v1' });
    out.push({ label: 'compatible format (tool mode)', url: `${origin}/compat/v1`, note: 'OpenAI-format clients and SDKs' });
  }
  if (modes.includes('direct')) {
    out.push({ label: 'direct mode, native', url: `${origin}/api`, note: 'tools and every model setting' });
    out.push({ label: 'direct mode, compatible', url: `${origin}/api/v1` });
  }
  if (modes.includes('respapi')) out.push({ label: 'response-API mode', url: `${origin}/respapi` });
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
