// `npm run demo`: a clearly labelled DEMONSTRATION. It starts the provider simulator and the fake assistant CLI
// from test/, writes throw-away credential files into a temporary directory, and starts the real proxy wired to
// them, so that a new user with no CLI and no subscription can watch every mode answer end to end. Nothing here
// is used by `npm run serve`; no real provider is contacted.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { validateSettings } from '../src/proxy/config.js';
import { createLogger } from '../src/proxy/logger.js';
import { createProxy } from '../src/proxy/server.js';
import { makeFakeCli } from '../test/fixtures/fake-cli.js';
import { startSimulator, writeCliCredentials, writeRespapiCredentials } from '../test/simulator/index.js';

/** The port: `--port N` (or `--port=N`) wins over PORT, as for `npm run serve`; default 8000. */
function demoPort(argv: string[], env: NodeJS.ProcessEnv): number {
  const i = argv.findIndex((a) => a === '--port' || a.startsWith('--port='));
  const raw = i < 0 ? env.PORT : argv[i].includes('=') ? argv[i].split('=')[1] : argv[i + 1];
  if (raw === undefined || raw === '') return 8000;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid port "${raw}": expected an integer from 0 to 65535 (--port or PORT)`);
  return port;
}

/** A chat that offers one client tool: the demo's fake CLI calls it (README "Quick start"). */
const demoToolRequest = {
  model: 'assistant-sonnet-4-6',
  messages: [{ role: 'user', content: 'What is the weather in Paris?' }],
  tools: [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    },
  ],
};

const help = `Usage: npm run demo -- [--port N]

A DEMONSTRATION: the proxy wired to a local provider simulator and a fake assistant CLI, so that every mode answers
with no CLI login and no subscription. Nothing reaches a real provider.

  --port N   listening port (also PORT; default 8000; 0 = any free port)
  --help     this text

The fake CLI calls a client's tool when the request offers one (the banner shows a curl line). For the real proxy:
npm run serve -- --help.
`;

async function main() {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(help);
    return;
  }
  const port = demoPort(argv, process.env);
  const dir = await mkdtemp(join(tmpdir(), 'assistant-proxy-demo-'));
  const sim = await startSimulator({
    knobs: { chunkIntervalMs: 40, replyText: 'Hello from the demo simulator! Every word arrives as its own chunk.' },
  });
  // FAKE_CLI_TOOL_CALLS: offered a client's tools, the fake CLI calls the first one with {"city":"Paris"} and answers
  // with what the client sent back, so tool mode's hand-off of tool calls can be seen without a login.
  const cli = await makeFakeCli({
    tokenDelayMs: 40,
    reply: 'Hello from the demo CLI! Tool mode streams token by token.',
    env: { FAKE_CLI_TOOL_CALLS: '1', FAKE_CLI_TOOL_INPUT: '{"city":"Paris"}' },
  });
  const cleanup = async () => {
    await sim.close();
    await cli.cleanup();
    await rm(dir, { recursive: true, force: true });
  };
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: sim.mintCliAccessToken(),
    refreshToken: 'demo-refresh',
    expiresAt: Date.now() + 8 * 3_600_000,
  });
  const respapiCredentialsPath = await writeRespapiCredentials(dir, {});
  const config = validateSettings({
    port,
    logLevel: (process.env.LOG_LEVEL as 'info') ?? 'info',
    cliPath: cli.path,
    cliWorkDir: join(dir, 'cli-workdir'),
    apiBaseUrl: sim.url,
    credentialsPath,
    oauthTokenUrl: sim.cliTokenUrl,
    respapiBaseUrl: sim.respapiBaseUrl,
    respapiCredentialsPath,
    respapiOauthTokenUrl: sim.respapiTokenUrl,
  });
  const proxy = createProxy({ config, logger: createLogger(config.logLevel) });
  let url: string;
  try {
    ({ url } = await proxy.listen());
  } catch (err) {
    // Nothing of the demo may outlive a failed start: no temporary credential files, no simulator.
    await proxy.close(0).catch(() => undefined);
    await cleanup();
    throw err;
  }
  const banner = [
    '',
    '==================================================================================',
    ' DEMONSTRATION MODE: answers come from a local simulator and a fake CLI,',
    ' not from a real assistant. Use `npm run serve` for the real thing.',
    '==================================================================================',
    `Proxy:  ${url}`,
    '',
    'Try (in another terminal):',
    `  curl -s ${url}/health/detailed`,
    `  curl -s ${url}/compat/v1/chat/completions -H 'content-type: application/json' \\`,
    `    -d '{"model":"assistant-sonnet-4-6","messages":[{"role":"user","content":"hi"}]}'`,
    `  curl -sN ${url}/v1/messages -H 'content-type: application/json' \\`,
    `    -d '{"model":"assistant-sonnet-4-6","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}'`,
    '  # tool mode hands the CLI\'s tool call to the client (answer with a "tool" message to continue):',
    `  curl -s ${url}/compat/v1/chat/completions -H 'content-type: application/json' \\`,
    `    -d '${JSON.stringify(demoToolRequest)}'`,
    `  curl -s ${url}/api/v1/messages -H 'content-type: application/json' -H 'x-api-key: dummy' \\`,
    `    -d '{"model":"assistant-sonnet-4-6","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}'`,
    `  curl -s ${url}/respapi/responses -H 'content-type: application/json' \\`,
    `    -d '{"model":"rm-4","messages":[{"role":"user","content":"hi"}]}'`,
    '',
    'Ctrl-C stops the demo and removes its temporary files.',
    '',
  ];
  process.stderr.write(banner.join('\n'));
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`\ndemo: ${signal} received, stopping the proxy, the simulator and the fake CLI\n`);
    await proxy.close(1000);
    await cleanup();
    process.stderr.write('demo: stopped; its temporary files are removed\n');
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
}

main().catch((err: Error) => {
  process.stderr.write(`demo: ${err.message}\n`);
  process.exit(1);
});
