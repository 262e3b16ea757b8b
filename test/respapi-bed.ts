// A test bed for response-API mode: the provider simulator, a temporary OAuth2 credential file, and a real proxy
// pointed at both (RESPAPI_BASE_URL, RESPAPI_CREDENTIALS_PATH, RESPAPI_OAUTH_TOKEN_URL).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '../src/proxy/config.js';
import type { ProfileOverrides } from '../src/proxy/profile.js';
import type { UsageSink } from '../src/proxy/usage/types.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import {
  startSimulator,
  writeRespapiCredentials,
  type RespapiCredentialOptions,
  type Simulator,
} from './simulator/index.js';

export interface RespapiBed {
  sim: Simulator;
  proxy: TestProxy;
  dir: string;
  credPath: string;
  post(path: string, body: unknown, init?: RequestInit): Promise<Response>;
  /** A second proxy on the same simulator with other settings (closed with the bed). */
  anotherProxy(settings: Settings): Promise<TestProxy>;
  close(): Promise<void>;
}

export async function startRespapiBed(
  opts: { settings?: Settings; cred?: RespapiCredentialOptions; profile?: ProfileOverrides; usage?: UsageSink } = {},
): Promise<RespapiBed> {
  const sim = await startSimulator();
  const dir = await mkdtemp(join(tmpdir(), 'respapi-test-'));
  const credPath = await writeRespapiCredentials(dir, opts.cred);
  const base = (): Settings => ({
    respapiBaseUrl: sim.respapiBaseUrl,
    respapiCredentialsPath: credPath,
    respapiOauthTokenUrl: sim.respapiTokenUrl,
    modes: ['respapi'],
    rateLimitPerMinute: 100_000,
  });
  const proxy = await startProxy({ ...base(), ...opts.settings }, { profile: opts.profile, usage: opts.usage });
  const others: TestProxy[] = [];
  return {
    sim,
    proxy,
    dir,
    credPath,
    post: (path, body, init = {}) =>
      fetch(proxy.url + path, {
        method: 'POST',
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    async anotherProxy(settings) {
      const p = await startProxy({ ...base(), ...settings });
      others.push(p);
      return p;
    },
    async close() {
      for (const p of others) await p.close();
      await proxy.close();
      await sim.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A chat-form body (docs/interface.md "Response-API request"). */
export function chatBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: 'rm-4', messages: [{ role: 'user', content: 'Say hello' }], ...extra };
}
