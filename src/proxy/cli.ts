#!/usr/bin/env node
// `npm run serve`: the headless proxy. Exit codes: 2 for an invalid setting (one line naming it, no stack),
// 1 when the port is taken or the server cannot start. SIGINT/SIGTERM stop accepting, let in-flight streams
// finish up to SHUTDOWN_GRACE_MS, then end them and every CLI child.

import { ConfigError, loadConfig, usage } from './config.js';
import { createLogger } from './logger.js';
import { createProfile, loadProfileOverrides } from './profile.js';
import { createProxy, PortInUseError } from './server.js';

async function main(): Promise<number> {
  let loaded;
  let profile;
  try {
    profile = createProfile(loadProfileOverrides(process.env));
    loaded = loadConfig({ argv: process.argv.slice(2), env: process.env, profile });
  } catch (err) {
    if (err instanceof ConfigError || err instanceof Error) {
      process.stderr.write(`assistant-proxy: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (loaded.help) {
    process.stdout.write(usage() + '\n');
    return 0;
  }
  const { config } = loaded;
  const logger = createLogger(config.logLevel);
  const proxy = createProxy({ config, profile, logger });
  try {
    const { url } = await proxy.listen();
    const snap = proxy.services.probe.snapshot();
    logger.info({ url, modes: config.modes, cli: snap.cli.path ?? null, cliStatus: snap.cli.status, loggedIn: snap.auth.loggedIn }, 'assistant-proxy listening');
    process.stderr.write(`assistant-proxy listening on ${url} (native: ${url}/v1, compatible: ${url}/compat/v1)\n`);
  } catch (err) {
    if (err instanceof PortInUseError) {
      process.stderr.write(`assistant-proxy: ${err.message}\n`);
      return 1;
    }
    process.stderr.write(`assistant-proxy: cannot start: ${(err as Error).message}\n`);
    return 1;
  }
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        process.stderr.write('assistant-proxy: second signal, exiting now\n');
        process.exit(130);
      }
      stopping = true;
      logger.info({ signal }, 'shutting down');
      void proxy.close().then(resolve);
    };
    process.on('SIGINT', () => stop('SIGINT'));
    process.on('SIGTERM', () => stop('SIGTERM'));
  });
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`assistant-proxy: unexpected failure: ${(err as Error).message}\n`);
    process.exit(1);
  },
);
