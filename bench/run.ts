// `npm run bench`: what the proxy costs against the client talking to the provider directly and against
// nginx as a plain reverse proxy, measured side by side in one run on this machine, reported as ratios.
// BENCH_QUICK=1 gives a one-minute smoke run; docs/benchmarks.md lists every knob.

import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, release, tmpdir, type as osType } from 'node:os';
import { join, relative } from 'node:path';
import { makeFakeCli, type FakeCli } from '../test/fixtures/fake-cli.js';
import { startCcr } from './ccr.js';
import { allWorkloads, loadBenchConfig } from './config.js';
import { baseKnobs, compatSpec, nativeSpec, roundOrder, type Bench, type CcrProcess } from './context.js';
import { evaluateGoals } from './goals.js';
import { runLoad } from './load.js';
import { ensureNginx, startNginx, type NginxProcess } from './nginx.js';
import { markdownReport, targets, writeReport, type Row } from './report.js';
import {
  buildProxy,
  repoRoot,
  startNodeHop,
  startProxyProcess,
  startSimulatorProcess,
  writeBenchCredentials,
  type ProxyProcess,
  type SimulatorProcess,
} from './servers.js';
import { runBillingWorkload } from './workload-billing.js';
import { runLiveCapWorkload } from './workload-live-cap.js';
import { runPoolWorkload } from './workload-pool.js';
import { runLedgerWorkload, runStartup } from './workload-proxies.js';
import { runRequestWorkloads, runSoak } from './workload-requests.js';
import { runOpenStreams, runPacedStreams } from './workload-streams.js';
import { runToolWorkload } from './workload-tool.js';

const started = Date.now();
const pkgVersion = (name: string): string => {
  try {
    return (
      JSON.parse(readFileSync(join(repoRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }
    ).version;
  } catch {
    return '?';
  }
};
const fastifyVersion = pkgVersion('fastify');
const httpProxyVersion = pkgVersion('@fastify/http-proxy');
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

async function main(): Promise<number> {
  const cfg = loadBenchConfig(join(repoRoot, 'bench', 'results'));
  const tmp = await mkdtemp(join(tmpdir(), 'assistant-proxy-bench-'));
  let sim: SimulatorProcess | undefined;
  let nginx: NginxProcess | undefined;
  let proxy: ProxyProcess | undefined;
  let nodeHop: ProxyProcess | undefined;
  let ccr: CcrProcess | string = 'not started';
  let fakeCli: FakeCli | undefined;
  const cleanup = async (): Promise<void> => {
    await Promise.allSettled([
      proxy?.stop(),
      nginx?.stop(),
      nodeHop?.stop(),
      typeof ccr === 'string' ? undefined : ccr.stop(),
    ]);
    await sim?.stop().catch(() => undefined);
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
    sim = await startSimulatorProcess();
    log(`simulator on ${sim.url}`);
    fakeCli = await makeFakeCli({
      delayMs: cfg.cliDelayMs,
      tokenDelayMs: cfg.cliTokenDelayMs,
      reply: 'Hello from the fake assistant CLI, streamed one word at a time.',
    });
    const credentialsPath = await writeBenchCredentials(join(tmp, 'credentials'));
    const proxyOptions = {
      build,
      simulator: sim,
      credentialsPath,
      cliPath: fakeCli.path,
      home: join(tmp, 'home'),
      logLevel: cfg.proxyLogLevel,
      nodeArgs: cfg.proxyNodeArgs,
    };
    proxy = await startProxyProcess(proxyOptions);
    log(`proxy (${build.kind}) on ${proxy.url}, pid ${proxy.pid}`);
    nginx = await startNginx(nginxBin, join(tmp, 'nginx'), sim.port, cfg.nginxWorkers);
    log(`nginx ${nginx.version} on ${nginx.url}`);
    const simUrl = sim.url;
    nodeHop = await startNodeHop(simUrl);
    log(`Node hop (fastify + @fastify/http-proxy) on ${nodeHop.url}, pid ${nodeHop.pid}`);
    // claude-code-router: optional; when it is not there or does not start, its cells say why and the run goes on.
    ccr = cfg.ccrWorkloads.length === 0 ? 'BENCH_CCR=none' : await startCcr(sim.url, join(tmp, 'ccr'), log);
    log(
      typeof ccr === 'string'
        ? `ccr: not a column in this run: ${ccr}`
        : `ccr ${ccr.version} on ${ccr.url}, pid ${ccr.pid}`,
    );

    const rows: Row[] = [];
    const b: Bench = {
      cfg,
      sim,
      nginx,
      nodeHop,
      proxy,
      ccr,
      proxyOptions,
      cliPath: fakeCli.path,
      // What the proxy's CliBackend passes on: its own (small) environment plus the retry bound (default 2).
      cliEnv: { PATH: process.env.PATH, HOME: proxyOptions.home, CLAUDE_CODE_MAX_RETRIES: '2' },
      log,
      rows,
      raw: {},
      notes: [],
      async restartProxy() {
        await proxy?.stop();
        proxy = await startProxyProcess(proxyOptions);
        b.proxy = proxy;
        log(`fresh proxy on ${proxy.url}, pid ${proxy.pid}`);
      },
      async restartNodeHop() {
        await nodeHop?.stop();
        nodeHop = await startNodeHop(simUrl);
        b.nodeHop = nodeHop;
        log(`fresh Node hop on ${nodeHop.url}, pid ${nodeHop.pid}`);
      },
    };

    const on = (w: string) => cfg.only.includes(w);
    // Warm-up: JIT and connection pools of every hop, before anything is measured.
    await sim.setKnobs(baseKnobs());
    for (const t of targets) {
      if (t === 'ccr' && typeof ccr === 'string') continue;
      log(`warm-up: ${t}`);
      await runLoad(nativeSpec(b, t, false), { connections: 32, durationSec: cfg.warmupSec });
    }
    // The translated route runs code the native one never does (validation, both translations): warmed too, so no
    // round of (c) times its compilation (docs/performance.md "First rounds").
    if (on('c')) {
      log('warm-up: proxy, translated route');
      await runLoad(compatSpec(b, false), { connections: 32, durationSec: cfg.warmupSec });
    }

    if (on('a') || on('c')) await runRequestWorkloads(b, on('a'), on('c')); // (a), (c) non-streaming
    if (on('b') || on('c')) await runPacedStreams(b, on('b'), on('c')); // (b), (c) streaming
    if (on('d')) await runToolWorkload(b);
    if (on('e')) await runOpenStreams(b); // fresh proxy
    if (on('f')) await runSoak(b); // fresh proxy
    if (on('l') && build.kind === 'dist') await runLedgerWorkload(b); // usage ledger on vs off
    if (on('p')) await runPoolWorkload(b); // the warm CLI pool, fake CLI and the real one when installed
    if (on('s')) await runStartup(b); // start-up of the built JavaScript and of the sources
    if (on('w')) await runBillingWorkload(b); // the provider's bill (prompt cache) and follow-up turns
    if (on('k')) await runLiveCapWorkload(b); // CLI_LIVE_MAX with idle chats and pending tool calls, real CLI

    const logLines = b.proxy.logLines();
    if (logLines > 0)
      b.notes.push(
        `The proxy wrote ${logLines} log lines at ${cfg.proxyLogLevel} level during its last life; the last: ${b.proxy.logTail().trim().split('\n').slice(-2).join(' | ').slice(0, 400)}`,
      );
    const cpu = cpus();
    const header = [
      `Command: \`${benchEnv()}npm run bench\`, ${new Date(started).toISOString()}, ${((Date.now() - started) / 1000).toFixed(0)} s`,
      `Machine: ${cpu.length} × ${cpu[0]?.model.trim() ?? 'unknown CPU'}, ${osType()} ${release()}, Node ${process.version}; every process on 127.0.0.1`,
      `Shared machine: other work (test suites of other engineers) ran at the same time, so throughput and latency move between runs; CPU per request (from /proc) and the interleaved ratios are the steadier figures`,
      `Proxy: ${build.kind === 'dist' ? 'production build, `node dist/proxy/cli.js`' : `**sources through tsx** (the build failed: ${build.note})`}, LOG_LEVEL=${cfg.proxyLogLevel}, metrics on, rate limit raised out of the way`,
      `direct: the client talks to the provider simulator itself (the limit). nginx ${nginx.version}: ${cfg.nginxWorkers} worker, proxy_pass, proxy_buffering off, HTTP/1.1 keep-alive upstream, access_log off`,
      `node hop: fastify ${fastifyVersion} + @fastify/http-proxy ${httpProxyVersion}, nothing else (bench/node-hop-process.mjs): the Node-level limit of a hop`,
      typeof ccr === 'string'
        ? `ccr (claude-code-router): n/a in this run: ${ccr}`
        : `${ccr.describe}; a column in workloads ${cfg.ccrWorkloads.join(', ')} (BENCH_CCR)`,
      `Load: autocannon (closed loop), ${cfg.rounds} rounds (the spread latency workload of (a): ${cfg.latencyRounds}) interleaved ${roundOrder.map((t) => (t === 'node' ? 'node hop' : t)).join(' → ')}, ${cfg.durationSec} s each${cfg.leadInSec > 0 ? `, each after a ${cfg.leadInSec} s lead-in of the same load that counts only in the lead-in CPU rows` : ''}; figures are medians of rounds (throughput) and percentiles of all rounds' samples (latency)`,
      `Simulator: reply of 4 words unless stated; non-streamed answers framed ${cfg.framings.map((f) => (f === 'length' ? 'with a content-length' : `chunked without one (${cfg.jsonChunks} writes)`)).join(' and ')}, each a variant of every non-streamed workload (the soak alternates them); paced streams ${cfg.streamChunks} chunks @ ${cfg.streamIntervalMs} ms; (c) direct/nginx columns are the native request (no translation exists there)`,
    ];
    b.raw.ccr = typeof ccr === 'string' ? { notRun: ccr } : { version: ccr.version, workloads: cfg.ccrWorkloads };
    const report = {
      title: 'Assistant Proxy benchmark',
      header,
      rows,
      goals: evaluateGoals(b.raw, cfg),
      notes: b.notes,
      raw: { config: { ...cfg, resultsDir: relative(repoRoot, cfg.resultsDir) || '.' }, ...b.raw },
    }; // no machine paths in the results
    // A quick or partial run never overwrites the latest full result.
    const partial = cfg.quick || allWorkloads.some((w) => !cfg.only.includes(w));
    const dir =
      partial && !process.env.BENCH_RESULTS_DIR ? join(tmpdir(), 'assistant-proxy-bench-results') : cfg.resultsDir;
    // A partial run written into the results directory on purpose (BENCH_RESULTS_DIR) is named after its workloads.
    const name = !partial ? 'latest' : process.env.BENCH_RESULTS_DIR ? `partial-${cfg.only.join('')}` : 'partial';
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
