// `npm run bench`: what the proxy costs against the client talking to the provider directly and against
// nginx as a plain reverse proxy, measured side by side in one run on this machine, reported as ratios.
// BENCH_QUICK=1 gives a short smoke run; docs/benchmarks.md lists every knob.

import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, release, tmpdir, type as osType } from 'node:os';
import { join, relative } from 'node:path';
import { makeFakeCli, type FakeCli } from '../test/fixtures/fake-cli.js';
import { startCcr } from './ccr.js';
import { allWorkloads, loadBenchConfig } from './config.js';
import { baseKnobs, cliAloneEnv, compatSpec, nativeSpec, roundOrder, type Bench } from './context.js';
import { evaluateGoals } from './goals.js';
import { runLoad } from './load.js';
import { ensureNginx, startNginx } from './nginx.js';
import { markdownReport, targets, writeReport } from './report.js';
import { buildProxy, packageOf, repoRoot, startNodeHop, startProxyProcess, startSimulatorProcess } from './servers.js';
import { writeBenchCredentials, type ProxyProcess } from './servers.js';
import { runBillingWorkload } from './workload-billing.js';
import { runSocketWorkload } from './workload-socket.js';
import { runDirectCacheWorkload } from './workload-direct-cache.js';
import { runLiveCapWorkload } from './workload-live-cap.js';
import { runPoolWorkload } from './workload-pool.js';
import { runLedgerWorkload, runStartup } from './workload-proxies.js';
import { runRequestWorkloads, runSoak } from './workload-requests.js';
import { runOpenStreams, runPacedStreams } from './workload-streams.js';
import { runToolWorkload } from './workload-tool.js';

const started = Date.now();
const pkgVersion = (name: string): string => packageOf(name)?.version ?? '?';
/** The BENCH_* settings of this run as they were given (the results directory left out: it may be a machine path). */
const benchEnv = (): string =>
  Object.entries(process.env)
    .filter(([k, v]) => k.startsWith('BENCH_') && k !== 'BENCH_RESULTS_DIR' && v)
    .map(([k, v]) => `${k}=${v} `)
    .sort()
    .join('');
const log = (line: string): void => {
  process.stderr.write(`[bench ${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}\n`);
};

/** The workloads in the order they run, each with the letters that select it; (e) and (f) start a fresh proxy. */
const has = (b: Bench, w: string): boolean => b.cfg.only.includes(w);
const workloads: Array<[string, (b: Bench) => Promise<void>]> = [
  ['ac', (b) => runRequestWorkloads(b, has(b, 'a'), has(b, 'c'))], // (a), (c) non-streaming
  ['bc', (b) => runPacedStreams(b, has(b, 'b'), has(b, 'c'))], // (b), (c) streaming
  ['d', runToolWorkload],
  ['e', runOpenStreams],
  ['f', runSoak],
  ['l', (b) => (b.proxyOptions.build.kind === 'dist' ? runLedgerWorkload(b) : Promise.resolve())], // ledger on/off
  ['p', runPoolWorkload], // the warm CLI pool, fake CLI and the real one when installed
  ['s', runStartup], // start-up of the built JavaScript and of the sources
  ['w', runBillingWorkload], // the provider's bill (prompt cache) and follow-up turns
  ['x', runDirectCacheWorkload], // direct mode's translated routes from the cache, marks on and off
  ['o', runSocketWorkload], // a Responses turn's CPU on the socket and over HTTP
  ['k', runLiveCapWorkload], // CLI_LIVE_MAX with idle chats and pending tool calls, real CLI
];

async function main(): Promise<number> {
  const cfg = loadBenchConfig(join(repoRoot, 'bench', 'results'));
  const tmp = await mkdtemp(join(tmpdir(), 'assistant-proxy-bench-'));
  const b: Partial<Bench> = {};
  let fakeCli: FakeCli | undefined;
  const cleanup = async (): Promise<void> => {
    const ccr = typeof b.ccr === 'string' ? undefined : b.ccr;
    await Promise.allSettled([b.proxy?.stop(), b.nginx?.stop(), b.nodeHop?.stop(), ccr?.stop()]);
    await b.sim?.stop().catch(() => undefined);
    await fakeCli?.cleanup().catch(() => undefined);
    await rm(tmp, { recursive: true, force: true });
  };
  const onSignal = () => {
    log('interrupted: stopping the processes the bench started');
    void cleanup().then(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    const nginxBin = ensureNginx();
    const build = buildProxy(log);
    const sim = (b.sim = await startSimulatorProcess());
    log(`simulator on ${sim.url}`);
    const reply = 'Hello from the fake assistant CLI, streamed one word at a time.';
    fakeCli = await makeFakeCli({ delayMs: cfg.cliDelayMs, tokenDelayMs: cfg.cliTokenDelayMs, reply });
    const home = join(tmp, 'home');
    const credentialsPath = await writeBenchCredentials(join(tmp, 'credentials'));
    const [logLevel, nodeArgs] = [cfg.proxyLogLevel, cfg.proxyNodeArgs];
    const proxyOptions = { build, simulator: sim, credentialsPath, cliPath: fakeCli.path, home, logLevel, nodeArgs };
    const proxy = (b.proxy = await startProxyProcess(proxyOptions));
    log(`proxy (${build.kind}) on ${proxy.url}, pid ${proxy.pid}`);
    const nginx = (b.nginx = await startNginx(nginxBin, join(tmp, 'nginx'), sim.port, cfg.nginxWorkers));
    log(`nginx ${nginx.version} on ${nginx.url}`);
    b.nodeHop = await startNodeHop(sim.url);
    log(`Node hop (fastify + @fastify/http-proxy) on ${b.nodeHop.url}, pid ${b.nodeHop.pid}`);
    // claude-code-router: optional; when it is not there or does not start, its cells say why and the run goes on.
    const ccr = (b.ccr = cfg.ccrWorkloads.length ? await startCcr(sim.url, join(tmp, 'ccr'), log) : 'BENCH_CCR=none');
    log(typeof ccr === 'string' ? `ccr: not a column in this run: ${ccr}` : `ccr ${ccr.version} on ${ccr.url}`);
    const bench: Bench = Object.assign(b, {
      cfg,
      proxyOptions,
      cliPath: fakeCli.path,
      // What the proxy's CliBackend passes on: its own (small) environment plus the retry bound (default 2).
      cliEnv: cliAloneEnv(home),
      ...{ log, rows: [], raw: {}, notes: [] },
      restartProxy: () => restart('proxy', 'proxy', () => startProxyProcess(bench.proxyOptions)),
      restartNodeHop: () => restart('nodeHop', 'Node hop', () => startNodeHop(sim.url)),
    }) as Bench;
    const restart = async (key: 'proxy' | 'nodeHop', name: string, start: () => Promise<ProxyProcess>) => {
      await bench[key].stop();
      bench[key] = await start();
      log(`fresh ${name} on ${bench[key].url}, pid ${bench[key].pid}`);
    };

    // Warm-up: JIT and connection pools of every hop, before anything is measured.
    await sim.setKnobs(baseKnobs());
    for (const t of targets.filter((x) => x !== 'ccr' || typeof ccr !== 'string')) {
      log(`warm-up: ${t}`);
      await runLoad(nativeSpec(bench, t, false), { connections: 32, durationSec: cfg.warmupSec });
    }
    // The translated route runs code the native one never does (validation, both translations): warmed too, so no
    // round of (c) times its compilation (docs/performance.md "First rounds").
    if (has(bench, 'c')) {
      log('warm-up: proxy, translated route');
      await runLoad(compatSpec(bench, false), { connections: 32, durationSec: cfg.warmupSec });
    }
    for (const [letters, run] of workloads) if ([...letters].some((w) => has(bench, w))) await run(bench);

    const logLines = bench.proxy.logLines();
    if (logLines > 0) {
      const last = bench.proxy.logTail().trim().split('\n').slice(-2).join(' | ').slice(0, 400);
      bench.notes.push(
        `The proxy wrote ${logLines} log lines at ${cfg.proxyLogLevel} level during its last life; the last: ${last}`,
      );
    }
    const cpu = cpus();
    const header = [
      `Command: \`${benchEnv()}npm run bench\`, ${new Date(started).toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
      `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${osType()} ${release()}, Node ${process.version}; every process on 127.0.0.1`,
      `Shared machine: other work (test suites of other engineers) ran at the same time, so throughput and latency move between runs; CPU per request (from /proc) and the interleaved ratios are the steadier figures`,
      `Proxy: ${build.kind === 'dist' ? 'production build, `node dist/proxy/cli.js`' : `**sources through tsx** (the build failed: ${build.note})`}, LOG_LEVEL=${cfg.proxyLogLevel}, metrics on, rate limit raised out of the way`,
      `direct: the client talks to the provider simulator itself (the limit). nginx ${nginx.version}: ${cfg.nginxWorkers} worker, proxy_pass, proxy_buffering off, HTTP/1.1 keep-alive upstream, access_log off`,
      `node hop: fastify ${pkgVersion('fastify')} + @fastify/http-proxy ${pkgVersion('@fastify/http-proxy')}, nothing else (bench/node-hop-process.mjs): the Node-level limit of a hop`,
      typeof ccr === 'string'
        ? `ccr (claude-code-router): n/a in this run: ${ccr}`
        : `${ccr.describe}; a column in workloads ${cfg.ccrWorkloads.join(', ')} (BENCH_CCR)`,
      `Load: autocannon (closed loop), ${cfg.rounds} rounds (the spread latency workload of (a): ${cfg.latencyRounds}) interleaved ${roundOrder.map((t) => (t === 'node' ? 'node hop' : t)).join(' → ')}, ${cfg.durationSec} s each${cfg.leadInSec > 0 ? `, each after a ${cfg.leadInSec} s lead-in of the same load that counts only in the lead-in CPU rows` : ''}; figures are medians of rounds (throughput) and percentiles of all rounds' samples (latency)`,
      `Simulator: reply of 4 words unless stated; non-streamed answers framed ${cfg.framings.map((f) => (f === 'length' ? 'with a content-length' : `chunked without one (${cfg.jsonChunks} writes)`)).join(' and ')}, each a variant of every non-streamed workload (the soak alternates them); paced streams ${cfg.streamChunks} chunks @ ${cfg.streamIntervalMs} ms; (c) direct/nginx columns are the native request (no translation exists there)`,
    ];
    bench.raw.ccr = typeof ccr === 'string' ? { notRun: ccr } : { version: ccr.version, workloads: cfg.ccrWorkloads };
    const config = { ...cfg, resultsDir: relative(repoRoot, cfg.resultsDir) || '.' }; // no machine paths
    const raw = { config, ...bench.raw };
    const goals = evaluateGoals(bench.raw, cfg);
    const report = { title: 'Assistant Proxy benchmark', header, rows: bench.rows, goals, notes: bench.notes, raw };
    // A quick or partial run never overwrites the latest full result; one written into the results directory on
    // purpose (BENCH_RESULTS_DIR) is named after its workloads.
    const partial = cfg.quick || allWorkloads.some((w) => !cfg.only.includes(w));
    const given = process.env.BENCH_RESULTS_DIR;
    const dir = partial && !given ? join(tmpdir(), 'assistant-proxy-bench-results') : cfg.resultsDir;
    const name = !partial ? 'latest' : given ? `partial-${cfg.only.join('')}` : 'partial';
    const files = await writeReport(dir, name, report);
    process.stdout.write(markdownReport(report) + '\n');
    log(`written: ${files.join(', ')}`);
    return 0;
  } finally {
    await cleanup();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`bench: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
