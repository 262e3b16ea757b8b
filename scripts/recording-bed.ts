// What every recording of the real assistant CLI starts from (scripts/record-cli-*.ts,
// test/fixtures/cli-recordings/README.md): the CLI named by REAL_ASSISTANT_CLI, the provider simulator on 127.0.0.1
// with the recording's knobs, and a throw-away HOME holding an OAuth credential file, so nothing reaches a real
// provider.

import { mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, writeCliCredentials, type SimulatorKnobs } from '../test/simulator/index.js';

export async function recordingBed(name: string, knobs: Partial<SimulatorKnobs>) {
  const cli = process.env.REAL_ASSISTANT_CLI;
  if (!cli) throw new Error('set REAL_ASSISTANT_CLI');
  const sim = await startSimulator({ knobs });
  const home = await mkdtemp(join(tmpdir(), `rec-${name}-`));
  await mkdir(join(home, '.claude'), { recursive: true });
  await writeCliCredentials(join(home, '.claude'), {
    accessToken: 'sk-ant-oat01-rec',
    refreshToken: 'sk-ant-ort01-rec',
    expiresAt: Date.now() + 3_600_000,
  });
  return { cli, sim, home };
}
