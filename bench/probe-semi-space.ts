// Probe (kept in history, docs/performance.md "Memory"): what capping V8's young generation costs in CPU. Two proxies,
// one with `--max-semi-space-size=16` and one without, each loaded in turn by 32 connections for 8 s with a native
// and a compatible request, 4 interleaved rounds; the proxy's CPU per request from /proc. Run:
//   npx tsx bench/probe-semi-space.ts
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { baseKnobs, nativeRequest, neutralModel } from './context.js';
import { runLoad } from './load.js';
import { cpuSeconds } from './procfs.js';
import { buildProxy, startProxyProcess, startSimulatorProcess, writeBenchCredentials } from './servers.js';

const sim = await startSimulatorProcess();
await sim.setKnobs(baseKnobs());
const dir = await mkdtemp(join(tmpdir(), 'probe-semi-'));
const credentialsPath = await writeBenchCredentials(dir);
const build = buildProxy(() => {});
const base = { build, simulator: sim, credentialsPath, cliPath: '/nonexistent', home: dir, logLevel: 'warn' };
const proxies = {
  capped: await startProxyProcess({ ...base, nodeArgs: ['--max-semi-space-size=16'] }),
  default: await startProxyProcess({ ...base, nodeArgs: [] }),
};
const specs = (url: string) => ({
  native: nativeRequest(url, '/api/v1/messages', neutralModel),
  compat: {
    ...nativeRequest(url, '/api/v1/chat/completions', neutralModel),
    headers: { 'content-type': 'application/json', authorization: 'Bearer x' },
  },
});
const cpu: Record<string, { s: number; n: number }> = {};
for (const p of Object.values(proxies)) await runLoad(specs(p.url).compat, { connections: 32, durationSec: 4 });
for (let round = 0; round < 4; round++)
  for (const name of round % 2 ? (['default', 'capped'] as const) : (['capped', 'default'] as const))
    for (const kind of ['native', 'compat'] as const) {
      const p = proxies[name];
      const before = cpuSeconds(p.pid);
      const r = await runLoad(specs(p.url)[kind], { connections: 32, durationSec: 8 });
      const key = `${name} ${kind}`;
      cpu[key] ??= { s: 0, n: 0 };
      cpu[key].s += cpuSeconds(p.pid) - before;
      cpu[key].n += r.ok;
    }
for (const [key, v] of Object.entries(cpu))
  console.log(key, `${((v.s / v.n) * 1e6).toFixed(1)} µs/request over ${v.n}`);
await proxies.capped.stop();
await proxies.default.stop();
await sim.stop();
