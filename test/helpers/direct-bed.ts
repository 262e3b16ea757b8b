// A direct-mode proxy in front of the provider simulator for a test: a CLI login file of its own (tokens named after
// `name`, valid for an hour) in a temporary folder, every upstream pointed at the simulator, the ledger sink a test
// gives. close() ends both and removes the folder.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '../../src/proxy/config.js';
import { writeCliCredentials, type Simulator } from '../simulator/index.js';
import { startProxy, type TestProxy } from './proxy.js';
import type { UsageSink } from '../../src/proxy/usage/types.js';

export async function startDirectBed(
  sim: Simulator,
  name: string,
  settings: Settings = {},
  opts: { usage?: UsageSink } = {},
): Promise<{ proxy: TestProxy; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), `${name}-`));
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: `sk-ant-oat01-${name}-abcdef123456`,
    refreshToken: `sk-ant-ort01-${name}-abcdef123456`,
    expiresAt: Date.now() + 3_600_000,
  });
  const proxy = await startProxy(
    {
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      modes: ['direct'],
      ...settings,
    },
    opts,
  );
  return {
    proxy,
    async close() {
      await proxy.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
