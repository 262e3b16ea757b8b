// What every workload shares: the targets (proxy, direct, nginx, the Node hop, claude-code-router), the simulator's
// knobs, the request shapes, the real CLI's set-up, and the rule that a proxy route which is not there yet (or a
// peer that is not running) gives an "n/a" cell instead of stopping the run.

import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { defaultProfile } from '../src/proxy/profile.js';
import type { SimulatorKnobs } from '../test/simulator/index.js';
import type { BenchConfig } from './config.js';
import { probeOnce, type RequestSpec } from './load.js';
import type { NginxProcess } from './nginx.js';
import { cpuSeconds, readRss, treeCpuSeconds, treeRss } from './procfs.js';
import type { Row, Target } from './report.js';
import { repoRoot, startProxyProcess, writeBenchCredentials } from './servers.js';
import type { ProxyProcess, ProxyProcessOptions, SimulatorProcess } from './servers.js';

/**
 * The order of the targets within an interleaved round: the proxy and the Node hop, the pair the CPU and latency goals
 * compare, back to back, so that a stretch of a slow machine (docs/benchmarks.md "Reading the figures") falls on both.
 */
export const roundOrder: Target[] = ['proxy', 'node', 'direct', 'nginx', 'ccr'];

/** Targets to leave out of one measurement, each with the text of its cells ("n/a (...)"). */
export type Skips = Partial<Record<Target, string>>;

export interface Bench {
  cfg: BenchConfig;
  sim: SimulatorProcess;
  nginx: NginxProcess;
  /** The minimal Node hop (fastify + @fastify/http-proxy): the Node-level limit of a reverse proxy. */
  nodeHop: ProxyProcess;
  proxy: ProxyProcess;
  /** claude-code-router on its native route, or why it is not a column in this run (bench/ccr.ts). */
  ccr: CcrProcess | string;
  /** How the bench starts a proxy; workloads that need their own start one with more environment. */
  proxyOptions: ProxyProcessOptions;
  /** Stops the proxy and starts a fresh one (for workloads that read its memory from a clean start). */
  restartProxy(): Promise<void>;
  /** The same for the Node hop, for (e) (docs/benchmarks.md "Reading the figures": "Fresh proxy for (e) and (f)"). */
  restartNodeHop(): Promise<void>;
  cliPath: string;
  /** The environment the proxy gives its CLI child, for running the same CLI directly (workload d). */
  cliEnv: NodeJS.ProcessEnv;
  log(line: string): void;
  rows: Row[];
  /** Raw figures per workload, written to latest.json. */
  raw: Record<string, unknown>;
  notes: string[];
}

export const neutralModel = 'assistant-sonnet-4-20250514';
export const providerModel = 'claude-sonnet-4-20250514';
export const prompt = 'Say hello in a few words.';

/** The pid of target t's hop (NaN for direct, or a peer not running), and whether its children count with it. */
function hop(b: Bench, t: Target): { pid: number; tree: boolean } {
  const peer = t === 'ccr' ? b.ccr : t === 'nginx' ? b.nginx : undefined;
  if (peer) return { pid: typeof peer === 'string' ? NaN : peer.pid, tree: true };
  return { pid: t === 'proxy' ? b.proxy.pid : t === 'node' ? b.nodeHop.pid : NaN, tree: false };
}

/** CPU seconds used so far by the hop of target t (nginx and ccr: with their children); NaN for direct (no hop). */
export const hopCpu = (b: Bench, t: Target): number => (hop(b, t).tree ? treeCpuSeconds : cpuSeconds)(hop(b, t).pid);

/** Resident memory of the hop of target t now, bytes (nginx and ccr: with their children); NaN for direct. */
export const hopRss = (b: Bench, t: Target): number =>
  hop(b, t).tree ? treeRss(hop(b, t).pid) : (readRss(hop(b, t).pid)?.rss ?? NaN);

export function baseOf(b: Bench, t: Target): string {
  if (t === 'ccr') return typeof b.ccr === 'string' ? 'http://127.0.0.1:9' : b.ccr.url;
  return { proxy: b.proxy.url, direct: b.sim.url, node: b.nodeHop.url, nginx: b.nginx.url }[t];
}

/**
 * A dummy key: direct mode replaces it with the OAuth bearer from the credential file
 * (docs/direct-mode.md "Authentication"); the simulator accepts any key when reached directly.
 */
export const nativeHeaders = {
  'content-type': 'application/json',
  'x-api-key': 'bench-dummy-key',
  'anthropic-version': '2023-06-01',
};

/** A started claude-code-router (bench/ccr.ts starts it; declared here, where the targets are). */
export type CcrProcess = ProxyProcess & { version: string; describe: string };

/** The native Messages request of the load workloads, to `base` + `path`. */
export const nativeRequest = (base: string, path: string, model: string, stream = false): RequestSpec => ({
  base,
  path,
  headers: nativeHeaders,
  body: JSON.stringify({ model, max_tokens: 1024, stream, messages: [{ role: 'user', content: prompt }] }),
});

/** Native Messages request: /api/v1/messages on the proxy (direct mode), /v1/messages on the simulator, nginx, the Node hop and ccr. */
export const nativeSpec = (b: Bench, t: Target, stream: boolean, path = '/api/v1/messages'): RequestSpec =>
  t === 'proxy'
    ? nativeRequest(b.proxy.url, path, neutralModel, stream)
    : nativeRequest(baseOf(b, t), '/v1/messages', providerModel, stream);

/** A compatible chat request through the proxy's translation route (docs/interface.md "Compatible chat request"). */
export const compatSpec = (b: Bench, stream: boolean): RequestSpec => ({
  ...nativeRequest(b.proxy.url, '/api/v1/chat/completions', neutralModel, stream),
  headers: { 'content-type': 'application/json', authorization: 'Bearer bench-dummy-key' },
});

/** Knobs of a plain, unpaced reply; workloads change only what they need on top. */
export function baseKnobs(): Partial<SimulatorKnobs> {
  return {
    latencyMs: 0,
    jsonChunks: undefined,
    chunkIntervalMs: 0,
    chunkCount: undefined,
    replyText: 'Hi from the simulator!',
    ping: true,
    failWith: undefined,
    streamFault: undefined,
  };
}

/**
 * Checks a proxy route with one request. Returns undefined when it answers 2xx, else the text for its cells:
 * "n/a (route not implemented)" for a 404, the status and message otherwise.
 */
export async function proxyRouteProblem(spec: RequestSpec): Promise<string | undefined> {
  try {
    const { status, text } = await probeOnce(spec);
    if (status >= 200 && status < 300) return undefined;
    if (status === 404) return 'n/a (route not implemented)';
    return `n/a (HTTP ${status}: ${text.replace(/\s+/g, ' ').slice(0, 80)})`;
  } catch (err) {
    return `n/a (${(err as Error).message})`;
  }
}

/**
 * The targets workload w (a letter) leaves out, each with why: the proxy when `proxySpec` gets no 2xx; ccr when it is
 * not started (missing, failed, BENCH_CCR=none), not listed in BENCH_CCR, or not answering a request of this kind.
 */
export async function skipsOf(b: Bench, w: string, proxySpec: RequestSpec, stream: boolean): Promise<Skips> {
  const proxy = await proxyRouteProblem(proxySpec);
  if (typeof b.ccr === 'string') return { proxy, ccr: `n/a (${b.ccr})` };
  if (!b.cfg.ccrWorkloads.includes(w))
    return { proxy, ccr: `n/a (not run: BENCH_CCR=${b.cfg.ccrWorkloads.join(',')})` };
  const ccr = await proxyRouteProblem(nativeSpec(b, 'ccr', stream));
  return { proxy, ccr: ccr?.replace('route not implemented', 'ccr: 404 on POST /v1/messages') };
}

/** The assistant CLI the test set-up installs (npm run test:setup), or REAL_ASSISTANT_CLI. */
const realCliPath =
  process.env.REAL_ASSISTANT_CLI ||
  join(repoRoot, '.cache', 'real-cli', 'node_modules', '@anthropic-ai', 'claude-code', 'bin', 'claude.exe');

/** A CLI for a proxy to run: its path, its HOME, and what more its environment needs. */
export type CliParts = Pick<ProxyProcessOptions, 'cliPath' | 'home' | 'env'>;
/** The real CLI set up to run, with the environment that points it at the simulator. */
export type RealCli = Required<CliParts>;

/**
 * The real CLI with a HOME of its own under `home` (its credential file, and the environment that points it at the
 * simulator: nothing reaches a real provider); or, when it is not installed, why, with `note` added to the notes.
 */
export async function realCli(b: Bench, home: string, note: string): Promise<RealCli | string> {
  if (!existsSync(realCliPath)) {
    b.notes.push(note);
    return `not installed at ${relative(repoRoot, realCliPath)} (npm run test:setup installs it)`;
  }
  await mkdir(join(home, '.claude'), { recursive: true });
  await writeBenchCredentials(join(home, '.claude'), 'bench-real-cli');
  const env = { [defaultProfile.cli.baseUrlEnv]: b.sim.url, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  return { cliPath: realCliPath, home, env };
}

/** The environment of the CLI run alone, as the proxy would give it to its child: small, with the retry bound. */
export const cliAloneEnv = (home: string, env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: home,
  [defaultProfile.cli.maxRetriesEnv]: '2',
  ...env,
});

/** What `acquire` gives, for `use`, and released after it whatever happened. */
async function using<R, T>(acquire: Promise<R>, release: (r: R) => Promise<unknown>, use: (r: R) => Promise<T>) {
  const r = await acquire;
  try {
    return await use(r);
  } finally {
    await release(r);
  }
}

/** A proxy of the bench's build with more options (its CLI, HOME, environment) for `use`, stopped after it. */
export const withProxy = <T>(b: Bench, o: Partial<ProxyProcessOptions>, use: (proxy: ProxyProcess) => Promise<T>) =>
  using(startProxyProcess({ ...b.proxyOptions, ...o }), (proxy) => proxy.stop(), use);

/** A temporary directory for `use`, removed after it. */
export const inTempDir = <T>(prefix: string, use: (dir: string) => Promise<T>) =>
  using(mkdtemp(join(tmpdir(), prefix)), (dir) => rm(dir, { recursive: true, force: true }), use);
