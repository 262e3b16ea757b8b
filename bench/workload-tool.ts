// (d) Tool mode: the fake CLI with a realistic start-up delay, time to first token through the proxy's
// /v1/messages (streaming) against the same CLI run directly, interleaved request by request. nginx has no
// equivalent here (there is no HTTP upstream to proxy to).

import { Agent } from 'node:http';
import { startCliRunner } from './cli.js';
import { nativeSpec, prompt, providerModel, proxyRouteProblem, type Bench } from './context.js';
import { pair, row, type Cell } from './report.js';
import { summarize } from './stats.js';
import { readStream } from './stream-probe.js';

export async function runToolWorkload(b: Bench): Promise<void> {
  const { cfg } = b;
  const spec = nativeSpec(b, 'proxy', true, '/v1/messages');
  const problem = await proxyRouteProblem(spec);
  const agent = new Agent({ keepAlive: true });
  const [viaProxy, direct]: number[][] = [[], []];
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
    const ttft = await runner.ttft(b.cliPath, providerModel, prompt, b.cliEnv);
    if (ttft === undefined) directErrors++;
    else direct.push(ttft);
  }
  agent.destroy();
  runner.stop();
  const p = summarize(viaProxy);
  const d = summarize(direct);
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
