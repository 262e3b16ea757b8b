// Why the added latency at 32 spread clients with a 100 ms upstream moves between runs (docs/benchmarks.md
// "Added latency: why runs differ"). Same processes as `npm run bench` (proxy from dist/, Node hop, nginx,
// simulator); the spread workload of (a), interleaved round by round with and without CPU-bound neighbours
// (BENCH_HOGS busy-looping processes, default 2: as many as this machine has cores), each round reporting the
// added median and p99 over direct, the hop's CPU per request and how busy the machine was.
// Usage: npx tsx bench/contention.ts   (after `npx tsc -p tsconfig.build.json`; about 2 minutes)

import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeFakeCli } from '../test/fixtures/fake-cli.js';
import { cpuSeconds, machineTicks, treeCpuSeconds } from './cpu.js';
import { runStaggered, type RequestSpec } from './load.js';
import { ensureNginx, startNginx } from './nginx.js';
import { startNodeHop, startProxyProcess, startSimulatorProcess, writeBenchCredentials } from './servers.js';

const rounds = Number(process.env.BENCH_ROUNDS || 2);
const hogs = Number(process.env.BENCH_HOGS || 2);
const seconds = Number(process.env.BENCH_DURATION_SEC || 6);
const body = (model: string) => JSON.stringify({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Say hello in a few words.' }] });
const headers = { 'content-type': 'application/json', 'x-api-key': 'bench-dummy-key', 'anthropic-version': '2023-06-01' };

async function main(): Promise<void> {
  const tmp = await mkdtemp(join(tmpdir(), 'bench-contention-'));
  const sim = await startSimulatorProcess();
  const cli = await makeFakeCli({});
  const proxy = await startProxyProcess({
    build: { kind: 'dist' },
    simulator: sim,
    credentialsPath: await writeBenchCredentials(join(tmp, 'credentials')),
    cliPath: cli.path,
    home: join(tmp, 'home'),
    logLevel: 'warn',
    nodeArgs: [],
  });
  const nodeHop = await startNodeHop(sim.url);
  const nginx = await startNginx(ensureNginx(() => undefined), join(tmp, 'nginx'), sim.port, 1);
  const specs: Record<string, { spec: RequestSpec; cpu: () => number }> = {
    // direct first: the others' added latency is against it, in the same condition of the same round
    direct: { spec: { base: sim.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, cpu: () => NaN },
    proxy: { spec: { base: proxy.url, path: '/api/v1/messages', headers, body: body('assistant-sonnet-4-20250514') }, cpu: () => cpuSeconds(proxy.pid) },
    nginx: { spec: { base: nginx.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, cpu: () => treeCpuSeconds(nginx.pid) },
    node: { spec: { base: nodeHop.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') }, cpu: () => cpuSeconds(nodeHop.pid) },
  };
  let hogProcs: ChildProcess[] = [];
  try {
    await sim.setKnobs({ latencyMs: 0, replyText: 'Hi from the simulator!' });
    for (const s of Object.values(specs)) await runStaggered(s.spec, { connections: 32, durationSec: 2, periodMs: 5 }); // warm-up
    await sim.setKnobs({ latencyMs: 100 });
    const lines: string[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const withHogs of [false, true]) {
        hogProcs = withHogs ? Array.from({ length: hogs }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' })) : [];
        const p50: Record<string, number> = {};
        const p99: Record<string, number> = {};
        for (const [name, s] of Object.entries(specs)) {
          const c0 = s.cpu();
          const m0 = machineTicks();
          const res = await runStaggered(s.spec, { connections: 32, durationSec: seconds, periodMs: 100 });
          const m1 = machineTicks();
          const sum = res.samples!.summary();
          p50[name] = sum.p50;
          p99[name] = sum.p99;
          const cpuUs = ((s.cpu() - c0) / Math.max(1, res.ok)) * 1e6;
          const busy = ((m1.busy - m0.busy) / (m1.total - m0.total)) * 100;
          if (name !== 'direct') {
            lines.push(
              `round ${r + 1} ${withHogs ? `with ${hogs} CPU hogs` : 'no hogs      '} ${name.padEnd(6)} added p50 ${(p50[name] - p50.direct).toFixed(2).padStart(6)} ms  p99 ${(p99[name] - p99.direct).toFixed(1).padStart(6)} ms  CPU/req ${cpuUs.toFixed(0).padStart(5)} µs  machine busy ${busy.toFixed(0)} %`,
            );
            process.stderr.write(lines.at(-1) + '\n');
          }
        }
        for (const h of hogProcs) h.kill('SIGKILL');
        hogProcs = [];
      }
    }
    process.stdout.write(lines.join('\n') + '\n');
  } finally {
    for (const h of hogProcs) h.kill('SIGKILL');
    await Promise.allSettled([proxy.stop(), nodeHop.stop(), nginx.stop()]);
    await sim.stop();
    await cli.cleanup();
    await rm(tmp, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`contention: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
