// The hardening test bed (docs/reliability.md): one proxy with every mode on, in this process, in front of the
// provider simulator (test/simulator, which records every request it receives) and the fake CLI
// (test/fixtures/fake-cli.ts), with temporary credential files for direct and response-API mode. Used by the fuzz
// properties (test/fuzz/properties.ts, scripts/fuzz.ts) and the fault-injection tests (test/faults-*.test.ts).
// Requests go out on raw node:http so a test controls the method, the request target and the Host header byte for
// byte, which fetch would normalise.

import { request as httpRequest } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '../../src/proxy/config.js';
import type { ProfileOverrides } from '../../src/proxy/profile.js';
import { makeFakeCli, type FakeCli, type FakeCliKnobs } from '../fixtures/fake-cli.js';
import { childEnv } from '../helpers/tool-proxy.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { startSimulator, writeCliCredentials, writeRespapiCredentials, type Simulator } from '../simulator/index.js';

export interface Bed {
  sim: Simulator;
  cli: FakeCli;
  proxy: TestProxy;
  dir: string;
  cliCredentialsPath: string;
  respapiCredentialsPath: string;
  /** Settings the proxy was started with, so a test can start a sibling with a few changed. */
  settings: Settings;
  /** Every token in the bed's credential files: none may ever appear in a log. */
  secrets(): Promise<string[]>;
  /** Another proxy on the same simulator, CLI and credentials with some settings changed (closed with the bed). */
  sibling(extra: Settings, knobs?: FakeCliKnobs): Promise<{ proxy: TestProxy; cli: FakeCli }>;
  close(): Promise<void>;
}

export const cliAccessToken = 'sk-ant-oat01-bed-access-0123456789abcdef';
export const cliRefreshToken = 'sk-ant-ort01-bed-refresh-0123456789abcdef';

export async function startBed(
  opts: { settings?: Settings; cli?: FakeCliKnobs; profile?: ProfileOverrides } = {},
): Promise<Bed> {
  const sim = await startSimulator();
  const cli = await makeFakeCli(opts.cli ?? {});
  const dir = await mkdtemp(join(tmpdir(), 'hardening-bed-'));
  const cliCredentialsPath = await writeCliCredentials(join(dir, 'cli'), {
    accessToken: cliAccessToken,
    refreshToken: cliRefreshToken,
    expiresAt: Date.now() + 24 * 3_600_000,
  });
  const respapiCredentialsPath = await writeRespapiCredentials(join(dir, 'respapi'));
  const settings: Settings = {
    modes: ['tool', 'direct', 'respapi'],
    cliPath: cli.path,
    cliWorkDir: join(dir, 'cli-workdir'),
    apiBaseUrl: sim.url,
    credentialsPath: cliCredentialsPath,
    oauthTokenUrl: sim.cliTokenUrl,
    respapiBaseUrl: sim.respapiBaseUrl,
    respapiCredentialsPath,
    respapiOauthTokenUrl: sim.respapiTokenUrl,
    rateLimitPerMinute: 1_000_000,
    rateLimitBurst: 1_000_000,
    cliMaxConcurrent: 8,
    logLevel: 'debug',
    ...opts.settings,
  };
  const proxy = await startProxy(settings, { deps: { childEnv }, profile: opts.profile });
  const others: Array<{ proxy: TestProxy; cli: FakeCli }> = [];
  return {
    sim,
    cli,
    proxy,
    dir,
    cliCredentialsPath,
    respapiCredentialsPath,
    settings,
    async secrets() {
      const respapi = JSON.parse(await readFile(respapiCredentialsPath, 'utf8')) as {
        tokens: Record<string, string | null>;
      };
      const fromRespapi = [respapi.tokens.access_token, respapi.tokens.refresh_token, respapi.tokens.id_token].filter(
        (t): t is string => typeof t === 'string' && t.length > 0,
      );
      return [cliAccessToken, cliRefreshToken, ...fromRespapi];
    },
    async sibling(extra, knobs) {
      const otherCli = knobs ? await makeFakeCli(knobs) : cli;
      const p = await startProxy(
        { ...settings, cliPath: otherCli.path, ...extra },
        { deps: { childEnv }, profile: opts.profile },
      );
      const entry = { proxy: p, cli: otherCli };
      others.push(entry);
      return entry;
    },
    async close() {
      for (const o of others) {
        await o.proxy.close();
        if (o.cli !== cli) await o.cli.cleanup();
      }
      await proxy.close();
      await sim.close();
      await cli.cleanup();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export interface RawRequest {
  method: string;
  /** The request target exactly as sent (origin form, e.g. /v1/messages?x=1). */
  path: string;
  /** Header name -> value; `host` replaces the default Host. */
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The client gave up waiting (a hang). */
  timedOut: boolean;
  /** The connection failed or was cut before a complete answer. */
  error?: string;
}

/** Sends one request on a fresh connection and reads the whole answer (streams to their end), or gives up. */
export function sendRaw(baseUrl: string, req: RawRequest, timeoutMs = 15_000): Promise<RawAnswer> {
  const u = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    let status = 0;
    let headers: RawAnswer['headers'] = {};
    let text = '';
    const finish = (extra: Partial<RawAnswer>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, headers, text, timedOut: false, ...extra });
    };
    const headerList: Record<string, string> = { host: `${u.hostname}:${u.port}`, ...req.headers };
    if (req.body !== undefined && !Object.keys(headerList).some((k) => k.toLowerCase() === 'content-length')) {
      headerList['content-length'] = String(Buffer.byteLength(req.body));
    }
    const r = httpRequest(
      {
        host: u.hostname,
        port: u.port,
        method: req.method,
        path: req.path,
        headers: headerList,
        setHost: false,
        agent: false,
      },
      (res) => {
        status = res.statusCode ?? 0;
        headers = res.headers;
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => finish({}));
        res.on('error', (err) => finish({ error: err.message }));
        res.on('aborted', () => finish({ error: 'aborted' }));
      },
    );
    const timer = setTimeout(() => {
      r.destroy();
      finish({ timedOut: true });
    }, timeoutMs);
    r.on('error', (err) => finish({ error: err.message }));
    if (req.body !== undefined) r.write(req.body);
    r.end();
  });
}

/** Polls until check() is true or the time is up. */
export async function eventually(check: () => Promise<boolean> | boolean, ms = 5000): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
}
