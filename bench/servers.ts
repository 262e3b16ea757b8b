// The processes under test, each its own OS process on 127.0.0.1: the provider simulator (forked, knobs over
// IPC), the proxy (the headless production build, `node dist/proxy/cli.js`, or `node --import tsx
// src/proxy/cli.ts` when the build fails), and nginx (nginx.ts). The bench process itself only drives load.

import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { writeCliCredentials, type SimulatorKnobs } from '../test/simulator/index.js';
import type { BillEntry } from './simulator-process.js';

export const repoRoot = new URL('..', import.meta.url).pathname.replace(/\/$/, '');

export interface ProxyBuild {
  kind: 'dist' | 'tsx';
  /** Why the tsx fallback was used (the build's first error lines). */
  note?: string;
}

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

export interface SimulatorProcess {
  url: string;
  port: number;
  cliTokenUrl: string;
  pid: number;
  setKnobs(knobs: Partial<SimulatorKnobs>): Promise<void>;
  /** reset(): an empty prompt cache and the default knobs. */
  reset(): Promise<void>;
  /** The bill of every /v1/messages request since the last call (workload w). */
  takeBill(): Promise<BillEntry[]>;
  stop(): Promise<void>;
}

/** Ends a child: `signal` first, SIGKILL after `graceMs`; resolves when it has exited. */
export function waitExit(child: ChildProcess, graceMs: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill(signal);
  });
}

export async function startSimulatorProcess(): Promise<SimulatorProcess> {
  const child = fork(join(repoRoot, 'bench', 'simulator-process.ts'), [], {
    cwd: repoRoot,
    execArgv: ['--import', 'tsx'],
    // structured clone keeps `chunkCount: undefined` (one piece per word), which JSON would drop
    serialization: 'advanced',
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ url: string; cliTokenUrl: string }>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`simulator exited (${code}) before it was ready`)));
    child.on('message', (m: { type: string; url: string; cliTokenUrl: string }) => {
      if (m.type === 'ready') resolve(m);
    });
  });
  let nextId = 0;
  const pending = new Map<number, (bill?: BillEntry[]) => void>();
  child.on('message', (m: { type: string; id: number; bill?: BillEntry[] }) => {
    if (m.type === 'ack') pending.get(m.id)?.(m.bill);
  });
  const ask = (msg: Record<string, unknown>): Promise<BillEntry[] | undefined> => {
    const id = ++nextId;
    return new Promise((resolve) => {
      pending.set(id, (bill) => {
        pending.delete(id);
        resolve(bill);
      });
      child.send({ ...msg, id });
    });
  };
  return {
    url: ready.url,
    port: Number(new URL(ready.url).port),
    cliTokenUrl: ready.cliTokenUrl,
    pid: child.pid!,
    async setKnobs(knobs) {
      await ask({ type: 'knobs', knobs });
    },
    async reset() {
      await ask({ type: 'reset' });
    },
    async takeBill() {
      return (await ask({ type: 'bill' })) ?? [];
    },
    async stop() {
      if (child.connected) child.disconnect();
      await waitExit(child, 3000);
    },
  };
}

/** A credential file in the CLI's shape, valid for a day, so direct mode injects its bearer and never refreshes. */
export async function writeBenchCredentials(dir: string): Promise<string> {
  return writeCliCredentials(dir, {
    accessToken: 'sk-ant-oat01-bench-access',
    refreshToken: 'sk-ant-ort01-bench-refresh',
    expiresAt: Date.now() + 24 * 3600_000,
  });
}

export interface ProxyProcessOptions {
  build: ProxyBuild;
  simulator: SimulatorProcess;
  credentialsPath: string;
  cliPath: string;
  home: string;
  logLevel: string;
  nodeArgs: string[];
  /** More environment for the proxy (and so for its CLI children), e.g. CLI_POOL_SIZE or the CLI's base URL. */
  env?: NodeJS.ProcessEnv;
}

export interface ProxyProcess {
  url: string;
  pid: number;
  /** The last lines the proxy wrote to stderr. */
  stderrTail(): string;
  /** Log lines (stdout) so far, and the last few: at warn, each is a failure worth reading. */
  logLines(): number;
  logTail(): string;
  stop(): Promise<void>;
}

export async function startProxyProcess(o: ProxyProcessOptions): Promise<ProxyProcess> {
  const entry =
    o.build.kind === 'dist'
      ? [join(repoRoot, 'dist', 'proxy', 'cli.js')]
      : ['--import', 'tsx', join(repoRoot, 'src', 'proxy', 'cli.ts')];
  const args = [...o.nodeArgs, ...entry];
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: proxyEnv(o), stdio: ['ignore', 'pipe', 'pipe'] });
  return attachProxy(child);
}

/** The proxy's environment in the bench: small, like a service's, with every upstream pointed at the simulator. */
export function proxyEnv(o: Omit<ProxyProcessOptions, 'build' | 'nodeArgs'>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: o.home,
    NODE_ENV: 'production',
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: o.logLevel,
    // The bench drives one client IP far beyond SPEC.md §8's default 60/min; limiting is not what is measured.
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

/** Waits for a started proxy's `listening on <url>` line (stderr) and wraps the child. */
export async function attachProxy(child: ChildProcess): Promise<ProxyProcess> {
  let tail = '';
  let logTail = '';
  let logLines = 0;
  child.stdout!.on('data', (c: Buffer) => {
    const text = c.toString();
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) logLines++;
    logTail = (logTail + text).slice(-4000);
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`proxy did not start in 20 s: ${tail}`)), 20_000);
    child.stderr!.on('data', (c: Buffer) => {
      tail = (tail + c.toString()).slice(-4000);
      const m = /listening on (http:\/\/[^\s]+)/.exec(tail);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`proxy exited (${code}) at start: ${tail.trim()}`));
    });
  });
  return {
    url,
    pid: child.pid!,
    stderrTail: () => tail,
    logLines: () => logLines,
    logTail: () => logTail,
    stop: () => waitExit(child, 5000),
  };
}

export interface NodeHopProcess {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The minimal Node hop (bench/node-hop-process.mjs) in front of the simulator, with the proxy's small environment. */
export async function startNodeHop(upstream: string): Promise<NodeHopProcess> {
  const entry = join(repoRoot, 'bench', 'node-hop-process.mjs');
  // BENCH_HOP_NODE_ARGS: node flags for the hop, as BENCH_PROXY_NODE_ARGS for the proxy (a profiler, a preload).
  const nodeArgs = (process.env.BENCH_HOP_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, entry, upstream], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH, NODE_ENV: 'production' },
    // stdin stays open: the hop ends itself when it closes, even if the bench is killed
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Node hop did not start in 20 s: ${out}`)), 20_000);
    const onData = (c: Buffer) => {
      out = (out + c.toString()).slice(-4000);
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Node hop exited (${code}) at start: ${out.trim()}`));
    });
  });
  return { url, pid: child.pid!, stop: () => waitExit(child, 3000) };
}
