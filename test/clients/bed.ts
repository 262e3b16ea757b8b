// The test bed of the client compatibility matrix (docs/clients.md): one proxy with tool and direct mode on, tool
// mode answering through the fake CLI (test/fixtures/fake-cli.ts), direct mode forwarding to the provider simulator
// (test/simulator) with a throw-away CLI credential file. Everything listens on 127.0.0.1 with OS-chosen ports.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Settings } from '../../src/proxy/config.js';
import { makeFakeCli, type FakeCli } from '../fixtures/fake-cli.js';
import { startProxy, type TestProxy } from '../helpers/proxy.js';
import { childEnv } from '../helpers/tool-proxy.js';
import { startSimulator, writeCliCredentials, type Simulator } from '../simulator/index.js';
import { defaultProfile } from '../../src/proxy/profile.js';

export interface ClientBed {
  /** The proxy's origin, e.g. http://127.0.0.1:PORT. */
  url: string;
  proxy: TestProxy;
  sim: Simulator;
  cli: FakeCli;
  close(): Promise<void>;
}

/** The fake CLI's answer, token by token ("Hi ", "from ", "fake!"). */
export const cliReply = 'Hi from fake!';
/** The fake CLI bills one input token per word of the prompt and the system prompt; a client that sends no system
 * prompt gets the profile's short default (docs/tool-mode.md "Lean by default"). */
export const cliInputTokens = (prompt: string): number =>
  `${prompt} ${defaultProfile.cli.defaultSystemPrompt}`.split(/\s+/).filter(Boolean).length;
/** The simulator's answer, one word per delta. */
export const simReply = 'Hi from the simulator!';
export const model = 'assistant-sonnet-4-20250514';

/** `settings` are added to the bed's own (e.g. MODEL_ALIASES). */
export async function startClientBed(settings: Settings = {}): Promise<ClientBed> {
  const dir = await mkdtemp(join(tmpdir(), 'client-bed-'));
  const sim = await startSimulator();
  const cli = await makeFakeCli({});
  const credentialsPath = await writeCliCredentials(dir, {
    accessToken: 'sk-ant-oat01-client-bed-token',
    refreshToken: 'sk-ant-ort01-client-bed',
    expiresAt: Date.now() + 3_600_000,
  });
  const proxy = await startProxy(
    {
      modes: ['tool', 'direct'],
      cliPath: cli.path,
      cliWorkDir: join(dir, 'cli-workdir'),
      apiBaseUrl: sim.url,
      credentialsPath,
      oauthTokenUrl: sim.cliTokenUrl,
      rateLimitPerMinute: 10_000,
      ...settings,
    },
    { deps: { childEnv } },
  );
  return {
    url: proxy.url,
    proxy,
    sim,
    cli,
    async close() {
      await proxy.close();
      await sim.close();
      await cli.cleanup();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The weather tool every client declares in direct mode; the simulator calls it with {"location":"Paris"}. */
export const weatherTool = {
  name: 'get_weather',
  description: 'Weather for a city',
  parameters: { type: 'object' as const, properties: { location: { type: 'string' } }, required: ['location'] },
};
