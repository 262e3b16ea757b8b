// (d) Tool mode: the fake CLI with a realistic start-up delay, time to first token through the proxy's
// /v1/messages (streaming) against the same CLI run directly, interleaved request by request. nginx has no
// equivalent here (there is no HTTP upstream to proxy to).

import { Agent } from 'node:http';
import { startCliRunner } from './cli-probe.js';
import { nativeSpec, providerModel, proxyRouteProblem, type Bench } from './context.js';
import type { Cell, Target } from './report.js';
import { Samples } from './stats.js';
import { readStream } from './stream-probe.js';

const prompt = 'Say hello in a few words.';

export async function runToolWorkload(b: Bench): Promise<void> {
  const { cfg } = b;
  const spec = nativeSpec(b, 'proxy', true, '/v1/messages');
  const problem = await proxyRouteProblem(spec);
  const agent = new Agent({ keepAlive: true });
  const viaProxy = new Samples();
  const direct = new Samples();
  let proxyErrors = 0;
  let directErrors = 0;
  let firstError: string | undefined;
  const runner = await startCliRunner();
  for (let i = 0; i < cfg.toolRequests; i++) {
    if (!problem) {
      const rec = await readStream(spec, 'native', agent, 60_000);
      if (rec.error || !rec.complete || rec.deltaTimes.length === 0) {
        proxyErrors++;
        firstError ??= rec.error ?? 'no text delta';
      } else viaProxy.push(rec.deltaTimes[0] - rec.startAt);
    }
    const run = await runner.run(b.cliPath, providerModel, prompt, b.cliEnv);
    if (run.ttftMs === undefined || run.exitCode !== 0) directErrors++;
    else direct.push(run.ttftMs);
  }
  agent.destroy();
  runner.stop();
  const p = viaProxy.summary();
  const d = direct.summary();
  const none = 'n/a (no equivalent)';
  const cells = (proxy: number, dir: number): Record<Target, Cell> => ({
    proxy: problem ?? proxy,
    direct: dir,
    nginx: none,
    node: none,
    ccr: none,
  });
  const wl = `(d) tool mode, CLI start-up ${cfg.cliDelayMs} ms`;
  b.rows.push(
    { workload: wl, metric: 'TTFT p50', unit: 'ms', cells: cells(p.p50, d.p50), ratios: true },
    { workload: wl, metric: 'TTFT max', unit: 'ms', cells: cells(p.max, d.max), ratios: true },
    { workload: wl, metric: 'added p50 vs CLI alone', unit: 'ms', cells: cells(p.p50 - d.p50, 0), ratios: false },
    { workload: wl, metric: 'errors', unit: 'count', cells: cells(proxyErrors, directErrors), ratios: false },
  );
  b.raw.d = { requests: cfg.toolRequests, proxy: problem ?? p, cliDirect: d, proxyErrors, directErrors, firstError };
  if (firstError) b.notes.push(`(d) first tool-mode error through the proxy: ${firstError}`);
}
