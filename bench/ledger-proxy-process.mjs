// The proxy as `node dist/proxy/cli.js` starts it, but with the usage ledger chosen by the first argument: "on"
// (the ledger in DATA_DIR, as the headless serve opens it) or "off" (the no-op sink a proxy without a ledger
// uses). The headless CLI has no setting that turns the ledger off, so the bench's ledger row (workload l) starts
// these two side by side. Prints `listening on <url>` on stderr like the CLI; ends on SIGTERM or when stdin closes.

import process from 'node:process';
import { loadConfig } from '../dist/proxy/config.js';
import { createLogger } from '../dist/proxy/logger.js';
import { createProfile } from '../dist/proxy/profile.js';
import { createProxy } from '../dist/proxy/server.js';
import { openLedger } from '../dist/proxy/usage/index.js';

const mode = process.argv[2];
if (mode !== 'on' && mode !== 'off') {
  process.stderr.write('usage: node bench/ledger-proxy-process.mjs on|off\n');
  process.exit(2);
}
const profile = createProfile();
const { config } = loadConfig({ argv: [], env: process.env, profile });
const logger = createLogger(config.logLevel);
const ledger = mode === 'on' ? openLedger(config, logger) : undefined;
const proxy = createProxy({ config, profile, logger, usage: ledger });
const { url } = await proxy.listen();
process.stderr.write(`ledger ${mode}: listening on ${url}\n`);
const stop = () =>
  void proxy
    .close(0)
    .catch(() => undefined)
    .then(() => {
      ledger?.close();
      process.exit(0);
    });
process.once('SIGTERM', stop);
process.stdin.on('close', stop).resume();
