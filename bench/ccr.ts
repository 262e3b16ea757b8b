// claude-code-router as a peer column on its native route, forwarding to the simulator through its pass-through
// `Anthropic` transformer: what ccr costs per request. It runs in the foreground with HOME and TMPDIR in the bench's
// temporary directory, so its config and files never touch the user's; when it is missing or does not answer,
// startCcr returns the reason and its cells say "n/a (<reason>)".

import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { nativeRequest, type CcrProcess } from './context.js';
import { probeOnce } from './load.js';
import { freePort, nodeArgsOf, packageOf, repoRoot, spawnNode, type ProxyProcess } from './servers.js';

const ccrPackage = '@musistudio/claude-code-router';
/** The model the bench asks for; ccr's Router sends every request to it anyway (one provider, `default` route). */
const model = 'claude-sonnet-4-20250514';

/** The config.json ccr reads from $HOME/.claude-code-router: the simulator as its only provider. */
function ccrConfig(simulatorUrl: string, port: number): Record<string, unknown> {
  return {
    HOST: '127.0.0.1',
    PORT: port,
    // No log files: the proxy runs at warn, the Node hop and nginx log nothing; ccr's default would be debug to disk.
    LOG: false,
    LOG_LEVEL: 'warn',
    API_TIMEOUT_MS: 600_000,
    NON_INTERACTIVE_MODE: true,
    Providers: [
      {
        name: 'sim',
        // The full endpoint, as in its README; the Anthropic transformer keeps requests and responses as they are.
        api_base_url: `${simulatorUrl}/v1/messages`,
        api_key: 'bench-dummy-key',
        models: [model],
        transformer: { use: ['Anthropic'] },
      },
    ],
    Router: { default: `sim,${model}` },
  };
}

/**
 * Starts ccr against the simulator. Resolves to the running process, or to the reason it cannot be a column
 * (a string to put in its cells as "n/a (...)"); it never throws, so the bench always finishes.
 */
export async function startCcr(
  simulatorUrl: string,
  dir: string,
  log: (line: string) => void,
): Promise<CcrProcess | string> {
  const pkgDir = join(repoRoot, 'node_modules', ccrPackage);
  const pkg = packageOf(ccrPackage);
  if (!pkg) return `${ccrPackage} not installed (npm install)`;
  const [version, cli] = [pkg.version, join(pkgDir, pkg.bin?.ccr ?? 'dist/cli.js')];
  if (!existsSync(cli)) return `${ccrPackage} ${version} has no ${cli.slice(pkgDir.length + 1)}`;
  const home = join(dir, 'home');
  const tmp = join(dir, 'tmp');
  const port = await freePort();
  await mkdir(join(home, '.claude-code-router'), { recursive: true });
  await mkdir(tmp, { recursive: true });
  await writeFile(
    join(home, '.claude-code-router', 'config.json'),
    JSON.stringify(ccrConfig(simulatorUrl, port), null, 2),
  );
  // BENCH_CCR_NODE_ARGS: node flags for ccr, as BENCH_HOP_NODE_ARGS for the Node hop (a profiler, a preload).
  const args = [...nodeArgsOf('BENCH_CCR_NODE_ARGS'), '--import', join(repoRoot, 'bench', 'exit-with-stdin.mjs'), cli];
  log(`starting ccr ${version}: HOME=${home} node ${args.join(' ')} start`);
  const env = { PATH: process.env.PATH, HOME: home, TMPDIR: tmp, NODE_ENV: 'production' };
  const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, 200);
  let started: ProxyProcess;
  try {
    started = await spawnNode('ccr', [...args, 'start'], env, { cwd: dir, port });
  } catch (err) {
    return oneLine((err as Error).message);
  }
  // One request through it before it is a column: it must reach the simulator and bring its answer back.
  const problem = await probeOnce(nativeRequest(started.url, '/v1/messages', model)).then(
    ({ status, text }) =>
      status !== 200 || !text.includes('"msg_sim_')
        ? `ccr answered HTTP ${status} to POST /v1/messages: ${oneLine(text)}`
        : undefined,
    (err: Error) => `ccr did not answer POST /v1/messages: ${err.message}`,
  );
  if (problem) {
    await started.stop();
    return problem;
  }
  return {
    ...started,
    version,
    describe: `ccr: ${ccrPackage} ${version}, \`node dist/cli.js start\` (foreground, temporary HOME), one provider = the simulator's /v1/messages with the pass-through "Anthropic" transformer, Router.default to it, LOG false, no APIKEY; its native route POST /v1/messages`,
  };
}
