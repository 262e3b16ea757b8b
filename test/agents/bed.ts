// The agents suite's bed: the provider simulator and a real proxy in front of it, tool mode through the real
// assistant CLI when it is installed (a temporary HOME and credential file, as test/tool-real-cli.test.ts does).

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realCliEnv } from '../helpers/real-cli.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from '../simulator/index.js';

export interface Bed {
  sim: Simulator;
  proxy: TestProxy;
  home: string;
  cliToken: string;
  directToken: string;
  /** A proxy with the bed's settings (the same data directory: kept responses survive), e.g. after a restart. */
  restart(): Promise<TestProxy>;
  close(): Promise<void>;
}

export async function startAgentsBed(realCli: string, haveRealCli: boolean): Promise<Bed> {
  const home = await mkdtemp(join(tmpdir(), 'agents-bed-'));
  const cliToken = 'sk-ant-oat01-agents-suite';
  const credentialsPath = await writeCliCredentials(join(home, '.claude'), {
    accessToken: cliToken,
    refreshToken: 'sk-ant-ort01-agents-suite',
    expiresAt: Date.now() + 3_600_000,
  });
  const sim = await startSimulator({ knobs: { replyText: 'A side answer from the simulator.' } });
  const start = () =>
    startProxy(
      {
        modes: haveRealCli ? ['tool', 'direct'] : ['direct'],
        apiBaseUrl: sim.url,
        credentialsPath,
        oauthTokenUrl: sim.cliTokenUrl,
        rateLimitPerMinute: 10_000,
        dataDir: join(home, 'proxy-data'),
        ...(haveRealCli
          ? { cliPath: realCli, cliWorkDir: join(home, 'cli-work'), cliFirstTokenTimeoutMs: 60_000 }
          : {}),
      },
      { deps: { childEnv: realCliEnv(home, sim.url) } },
    );
  const bed: Bed = {
    sim,
    proxy: await start(),
    home,
    cliToken,
    directToken: cliToken,
    async restart() {
      await bed.proxy.close();
      bed.proxy = await start();
      return bed.proxy;
    },
    async close() {
      await bed.proxy.close();
      await sim.close();
      await rm(home, { recursive: true, force: true });
    },
  };
  return bed;
}
