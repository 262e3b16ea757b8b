// (d) Tool mode: time to first token through the proxy's /v1/messages against the same fake CLI run directly,
// interleaved request by request; no other column has an equivalent (there is no HTTP upstream to proxy to).

import { Agent } from 'node:http';
import { startCliRunner } from './cli.js';
import { nativeSpec, prompt, providerModel, proxyRouteProblem, type Bench } from './context.js';
import { summarize } from './load.js';
import { pair, row, type Cell } from './report.js';
import { ttftOnce } from './stream-probe.js';

export async function runToolWorkload(b: Bench): Promise<void> {
  const { cfg } = b;
  const spec = nativeSpec(b, 'proxy', true, '/v1/messages');
  const problem = await proxyRouteProblem(spec);
  const agent = new Agent({ keepAlive: true });
  const [viaProxy, direct]: number[][] = [[], []];
  let [proxyErrors, directErrors, firstError] = [0, 0, undefined as string | undefined];
  const runner = await startCliRunner();
  for (let i = 0; i < cfg.toolRequests; i++) {
    const ttft = problem ? undefined : await ttftOnce(spec, agent);
    if (typeof ttft === 'number') viaProxy.push(ttft);
    else if (ttft !== undefined) [proxyErrors, firstError] = [proxyErrors + 1, firstError ?? ttft];
    const alone = await runner.ttft(b.cliPath, providerModel, prompt, b.cliEnv);
    if (alone === undefined) directErrors++;
    else direct.push(alone);
  }
  agent.destroy();
  runner.stop();
  const [p, d] = [summarize(viaProxy), summarize(direct)];
  const cells = (proxy: Cell, dir: Cell) => pair(problem ?? proxy, dir, 'n/a (no equivalent)');
  const wl = `(d) tool mode, CLI start-up ${cfg.cliDelayMs} ms`;
  b.rows.push(
    row(wl, 'TTFT p50', 'ms', cells(p.p50, d.p50)),
    row(wl, 'TTFT max', 'ms', cells(p.max, d.max)),
    row(wl, 'added p50 vs CLI alone', 'ms', cells(p.p50 - d.p50, 0), false),
    row(wl, 'errors', 'count', cells(proxyErrors, directErrors), false),
  );
  b.raw.d = { requests: cfg.toolRequests, proxy: problem ?? p, cliDirect: d, proxyErrors, directErrors, firstError };
  if (firstError) b.notes.push(`(d) first tool-mode error through the proxy: ${firstError}`);
}
