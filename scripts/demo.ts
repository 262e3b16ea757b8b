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

async function main() {
  const port = Number(process.env.PORT ?? 8000);
  const dir = await mkdtemp(join(tmpdir(), 'assistant-proxy-demo-'));
  const sim = await startSimulator({ knobs: { chunkIntervalMs: 40, replyText: 'Hello from the demo simulator! Every word arrives as its own chunk.' } });
  const cli = await makeFakeCli({ tokenDelayMs: 40, reply: 'Hello from the demo CLI! Tool mode streams token by token.' });
  const credentialsPath = await writeCliCredentials(dir, { accessToken: sim.mintCliAccessToken(), refreshToken: 'demo-refresh', expiresAt: Date.now() + 8 * 3_600_000 });
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
  const { url } = await proxy.listen();
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
    `    -d '{"model":"assistant-sonnet-4-20250514","messages":[{"role":"user","content":"hi"}]}'`,
    `  curl -sN ${url}/v1/messages -H 'content-type: application/json' \\`,
    `    -d '{"model":"assistant-sonnet-4-20250514","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}'`,
    `  curl -s ${url}/api/v1/messages -H 'content-type: application/json' -H 'x-api-key: dummy' \\`,
    `    -d '{"model":"assistant-sonnet-4-20250514","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}'`,
    `  curl -s ${url}/respapi/responses -H 'content-type: application/json' \\`,
    `    -d '{"model":"rm-4","messages":[{"role":"user","content":"hi"}]}'`,
    '',
    'Ctrl-C stops the demo and removes its temporary files.',
    '',
  ];
  process.stderr.write(banner.join('\n'));
  const stop = async () => {
    await proxy.close(1000);
    await sim.close();
    await cli.cleanup();
    await rm(dir, { recursive: true, force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err: Error) => {
  process.stderr.write(`demo: ${err.message}\n`);
  process.exit(1);
});
