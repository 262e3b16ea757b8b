// The processes under test, each its own OS process on 127.0.0.1 (docs/benchmarks.md "How it runs"): the provider
// simulator, the proxy and the minimal Node hop; nginx.ts and ccr.ts start the peers with `attach`.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { join } from 'node:path';
import { writeCliCredentials, type SimulatorKnobs } from '../test/simulator/index.js';
import { forkIpc } from './fork-ipc.js';
import type { BillEntry } from './simulator-process.js';

export const repoRoot = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A port the OS just handed out on 127.0.0.1 (free at the time of the call), for peers that cannot take port 0. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer().once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => resolve(typeof addr === 'object' && addr ? addr.port : 0));
    });
  });
}

/** `dist`, or `tsx` with why: the build's first error lines. */
type ProxyBuild = { kind: 'dist' | 'tsx'; note?: string };

/** `tsc -p tsconfig.build.json` into dist/. A failed build (a file mid-edit) falls back to running the sources. */
export function buildProxy(log: (line: string) => void): ProxyBuild {
  log('building the proxy: tsc -p tsconfig.build.json');
  const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status === 0 && existsSync(join(repoRoot, 'dist', 'proxy', 'cli.js'))) return { kind: 'dist' };
  const first = (r.stdout + r.stderr).split('\n').filter(Boolean).slice(0, 3).join(' | ');
  log(`build failed; running the proxy from sources with tsx instead: ${first}`);
  return { kind: 'tsx', note: first };
}

/** Ends a child: `signal` first, SIGKILL after `graceMs`; resolves when it has exited. */
export function waitExit(child: ChildProcess, graceMs: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => resolve(clearTimeout(timer)));
    child.kill(signal);
  });
}

export type SimulatorProcess = Awaited<ReturnType<typeof startSimulatorProcess>>;

/** The simulator; reset() empties its prompt cache and restores the default knobs; takeBill() the bill since the last. */
export async function startSimulatorProcess() {
  const file = join(repoRoot, 'bench', 'simulator-process.ts');
  type Ready = { url: string; cliTokenUrl: string };
  const { child, ready, ask } = await forkIpc<Ready, { bill?: BillEntry[] }>(file, [], true);
  return {
    url: ready.url,
    port: Number(new URL(ready.url).port),
    cliTokenUrl: ready.cliTokenUrl,
    setKnobs: async (knobs: Partial<SimulatorKnobs>) => void (await ask({ type: 'knobs', knobs })),
    reset: async () => void (await ask({ type: 'reset' })),
    takeBill: async (): Promise<BillEntry[]> => (await ask({ type: 'bill' })).bill ?? [],
    async stop() {
      if (child.connected) child.disconnect();
      await waitExit(child, 3000);
    },
  };
}

/** A credential file in the CLI's shape, valid for a day, so direct mode injects its bearer and never refreshes. */
export const writeBenchCredentials = (dir: string, name = 'bench'): Promise<string> =>
  writeCliCredentials(dir, {
    accessToken: `sk-ant-oat01-${name}-access`,
    refreshToken: `sk-ant-ort01-${name}-refresh`,
    expiresAt: Date.now() + 24 * 3600_000,
  });

export interface ProxyProcessOptions {
  build: ProxyBuild;
  simulator: { url: string; cliTokenUrl: string };
  credentialsPath: string;
  cliPath: string;
  home: string;
  logLevel: string;
  nodeArgs: string[];
  /** More environment for the proxy (and so for its CLI children), e.g. CLI_POOL_SIZE or the CLI's base URL. */
  env?: NodeJS.ProcessEnv;
}

export type ProxyProcess = Awaited<ReturnType<typeof attach>>;

/** The proxy's environment in the bench: small, like a service's, with every upstream pointed at the simulator. */
export function proxyEnv(o: Omit<ProxyProcessOptions, 'build' | 'nodeArgs'>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: o.home,
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: o.logLevel,
    // The bench drives one client IP far beyond the default 60/min (docs/interface.md "Limits"); limiting is not what
    // is measured.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_BURST: '1000000',
    ASSISTANT_API_BASE_URL: o.simulator.url,
    ASSISTANT_CREDENTIALS_PATH: o.credentialsPath,
    ASSISTANT_OAUTH_TOKEN_URL: o.simulator.cliTokenUrl,
    ASSISTANT_CLI_PATH: o.cliPath,
    CLI_WORKDIR: join(o.home, 'cli-workdir'),
    RESPAPI_CREDENTIALS_PATH: join(o.home, 'no-respapi-auth.json'),
    SHUTDOWN_GRACE_MS: '1000',
    ...o.env,
  };
}

/** Spawns node with these arguments and waits for it to listen (attach); `cwd` defaults to the repository. */
export const spawnNode = (
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  o: AttachOptions & { cwd?: string } = {},
) => attach(name, spawn(process.execPath, args, { cwd: o.cwd ?? repoRoot, env, stdio: 'pipe' }), o);

export function startProxyProcess(o: ProxyProcessOptions): Promise<ProxyProcess> {
  const entry =
    o.build.kind === 'dist'
      ? [join(repoRoot, 'dist', 'proxy', 'cli.js')]
      : ['--import', 'tsx', join(repoRoot, 'src', 'proxy', 'cli.ts')];
  return spawnNode('proxy', [...o.nodeArgs, ...entry], proxyEnv(o));
}

/**
 * Waits until a started child listens, by its `listening on <url>` line (either stream) or, for a peer that prints
 * none, by `port` taking connections; rejects with its last output when it exits first or takes over 20 s. Its stdin
 * stays open: the Node hop and ccr end themselves when it closes, even if the bench is killed. At warn, each line
 * the proxy logs (stdout) is a failure worth reading: they are counted and the last ones kept.
 */
type AttachOptions = { port?: number; signal?: NodeJS.Signals };

export async function attach(name: string, child: ChildProcess, o: AttachOptions = {}) {
  let [tail, logTail, logLines, settled] = ['', '', 0, false];
  child.stdout?.on('data', (c: Buffer) => {
    logLines += c.toString().split('\n').length - 1;
    logTail = (logTail + c.toString()).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const end = (f: () => void) => (settled ||= (clearTimeout(timer), f(), true));
    const timer = setTimeout(() => end(() => reject(new Error(`${name} did not start in 20 s: ${tail}`))), 20_000);
    const onData = (c: Buffer) => {
      tail = (tail + c.toString()).slice(-4000);
      const m = /listening on (http:\/\/[^\s]+)/.exec(tail);
      if (m && o.port === undefined) end(() => resolve(m[1]));
    };
    child.stderr?.on('data', onData);
    child.stdout?.on('data', onData);
    child.once('exit', (code) => end(() => reject(new Error(`${name} exited (${code}) at start: ${tail.trim()}`))));
    const poll = (port: number): void => {
      const socket = createConnection({ host: '127.0.0.1', port });
      socket.once('connect', () => (socket.destroy(), end(() => resolve(`http://127.0.0.1:${port}`))));
      socket.once('error', () => settled || setTimeout(() => poll(port), 50));
    };
    if (o.port !== undefined) poll(o.port);
  });
  const stop = () => waitExit(child, 5000, o.signal);
  return { url, pid: child.pid!, logLines: () => logLines, logTail: () => logTail, stop };
}

/** The minimal Node hop (bench/node-hop-process.mjs) in front of the simulator, with the proxy's small environment. */
export function startNodeHop(upstream: string): Promise<ProxyProcess> {
  // BENCH_HOP_NODE_ARGS: node flags for the hop, as BENCH_PROXY_NODE_ARGS for the proxy (a profiler, a preload).
  const entry = join(repoRoot, 'bench', 'node-hop-process.mjs');
  const env = { PATH: process.env.PATH, NODE_ENV: 'production' };
  return spawnNode('Node hop', [...nodeArgsOf('BENCH_HOP_NODE_ARGS'), entry, upstream], env);
}

/** The node flags an environment variable gives (BENCH_PROXY_NODE_ARGS and its kin), or `fallback`'s. */
export const nodeArgsOf = (name: string, fallback = ''): string[] =>
  (process.env[name] ?? fallback).split(/\s+/).filter(Boolean);

type PackageJson = { version: string; bin?: Record<string, string>; scripts?: Record<string, string> };

/** package.json of an installed package (of the repository itself without a name), or undefined. */
export function packageOf(name = ''): PackageJson | undefined {
  try {
    return JSON.parse(readFileSync(join(repoRoot, name && 'node_modules', name, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
}
