// The latency trace of docs/benchmarks.md ("The chunked answer"), as one command: the built proxy and the Node hop,
// each with bench/latency-trace.mjs preloaded, in front of one simulator that answers alternately with a
// content-length and chunked (jsonChunks: 'alternate'), so both framings meet the same process in the same machine
// state; 32 clients spread over a 100 ms upstream (the latency workload of (a)) after a warm-up; then the stage
// summary of each trace (bench/trace-summary.ts).
// Usage: npx tsx bench/latency-trace-run.ts   (after `npx tsc -p tsconfig.build.json`)
// TRACE_PROXY_DIR=<dir>: trace the proxy built in another checkout instead (e.g. a worktree of the commit before).
// TRACE_JSON_CHUNKS=<n>: every answer chunked in n writes instead of alternating (0: every answer with a length).
// TRACE_SECONDS (8), TRACE_ROUNDS (1), TRACE_CONNECTIONS (32), TRACE_NODE_ARGS (more node arguments of both hops), LATENCY_TRACE_DIR.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runLoad, runStaggered, type RequestSpec } from './load.js';
import { attachProxy, proxyEnv, repoRoot, startSimulatorProcess, waitExit, writeBenchCredentials } from './servers.js';

const seconds = Number(process.env.TRACE_SECONDS || 8);
const rounds = Number(process.env.TRACE_ROUNDS || 1);
const connections = Number(process.env.TRACE_CONNECTIONS || 32);
const home = mkdtempSync(join(tmpdir(), 'latency-trace-'));
const traceDir = process.env.LATENCY_TRACE_DIR || mkdtempSync(join(tmpdir(), 'latency-trace-out-'));
const nodeArgs = ['--import', join(repoRoot, 'bench', 'latency-trace.mjs'), ...(process.env.TRACE_NODE_ARGS ?? '').split(' ').filter(Boolean)];
const proxyDir = process.env.TRACE_PROXY_DIR || repoRoot;

const sim = await startSimulatorProcess();
const credentialsPath = await writeBenchCredentials(home);
const env = { ...proxyEnv({ simulator: sim, credentialsPath, cliPath: '/bin/false', home, logLevel: 'warn' }), LATENCY_TRACE_DIR: traceDir };
const proxy = await attachProxy(spawn(process.execPath, [...nodeArgs, join(proxyDir, 'dist', 'proxy', 'cli.js')], { cwd: proxyDir, env, stdio: ['ignore', 'pipe', 'pipe'] }));
const hop = spawn(process.execPath, [...nodeArgs, join(repoRoot, 'bench', 'node-hop-process.mjs'), sim.url], {
  cwd: repoRoot,
  env: { PATH: process.env.PATH, NODE_ENV: 'production', LATENCY_TRACE_DIR: traceDir },
  stdio: ['pipe', 'pipe', 'inherit'],
});
const hopUrl = await new Promise<string>((resolve) => {
  hop.stdout!.on('data', (c: Buffer) => {
    const m = /listening on (\S+)/.exec(c.toString());
    if (m) resolve(m[1]);
  });
});

const headers = { 'content-type': 'application/json', 'x-api-key': 'bench-dummy-key', 'anthropic-version': '2023-06-01' };
const body = (model: string) => JSON.stringify({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello in a few words.' }] });
const specs: Record<string, RequestSpec> = {
  direct: { base: sim.url, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') },
  proxy: { base: proxy.url, path: '/api/v1/messages', headers, body: body('assistant-sonnet-4-20250514') },
  'node hop': { base: hopUrl, path: '/v1/messages', headers, body: body('claude-sonnet-4-20250514') },
};
try {
  await sim.setKnobs({ latencyMs: 0, jsonChunks: process.env.TRACE_JSON_CHUNKS ? Number(process.env.TRACE_JSON_CHUNKS) : 'alternate' });
  for (const spec of Object.values(specs)) await runLoad(spec, { connections: 32, durationSec: 2 });
  await sim.setKnobs({ latencyMs: 100 });
  // The warm-up's requests are left out of the traces.
  process.kill(proxy.pid, 'SIGUSR2');
  process.kill(hop.pid!, 'SIGUSR2');
  for (let r = 0; r < rounds; r++) {
    for (const [name, spec] of Object.entries(specs)) {
      const res = await runStaggered(spec, { connections, durationSec: seconds, periodMs: 100 });
      const s = res.samples!.summary();
      console.log(`${name}: ${res.ok} answers, ${res.errors + res.non2xx} errors, latency p50 ${s.p50.toFixed(2)} ms, p99 ${s.p99.toFixed(2)} ms`);
    }
  }
} finally {
  await proxy.stop();
  hop.stdin!.end();
  await waitExit(hop, 3000);
  await sim.stop();
  rmSync(home, { recursive: true, force: true });
}
console.log(`proxy pid ${proxy.pid}, node hop pid ${hop.pid}; traces in ${traceDir}\n`);
const files = readdirSync(traceDir)
  .filter((f) => f === `trace-${proxy.pid}.json` || f === `trace-${hop.pid}.json`)
  .map((f) => join(traceDir, f));
spawnSync(process.execPath, ['--import', 'tsx', join(repoRoot, 'bench', 'trace-summary.ts'), ...files], { cwd: repoRoot, stdio: 'inherit' });
