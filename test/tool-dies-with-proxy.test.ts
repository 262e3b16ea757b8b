// A CLI child dies with the proxy (docs/tool-mode.md "Process hygiene"): a proxy process killed with SIGKILL cannot
// end its children itself, so on Linux they are started with a parent-death signal (modes/tool/engine/death-signal.ts). Here a
// separate node process runs the CLI backend, starts a chat whose fake CLI never finishes, and is killed; the CLI must
// not outlive it. Linux with util-linux setpriv only; skipped elsewhere, saying why.

import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deathSignalWrapper } from '../src/proxy/modes/tool/engine/death-signal.js';
import { makeFakeCli } from './fixtures/fake-cli.js';
import { childEnv } from './helpers/tool-proxy.js';

const wrapper = deathSignalWrapper();
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe.skipIf(!wrapper)(
  `a CLI whose proxy was killed (${wrapper ? 'setpriv found' : 'skipped: needs Linux and util-linux setpriv with --pdeathsig'})`,
  () => {
    it('dies with it, so it can make no more provider calls', async () => {
      const cli = await makeFakeCli({ scenario: 'hang' });
      const base = await mkdtemp(join(tmpdir(), 'dies-with-proxy-'));
      const root = new URL('..', import.meta.url).pathname;
      const script = join(base, 'proxy.mts');
      await writeFile(
        script,
        `import { CliBackend } from ${JSON.stringify(join(root, 'src/proxy/modes/tool/engine/cli-backend.ts'))};
import { validateSettings } from ${JSON.stringify(join(root, 'src/proxy/config.ts'))};
import { createLogger } from ${JSON.stringify(join(root, 'src/proxy/logger.ts'))};
import { createProfile } from ${JSON.stringify(join(root, 'src/proxy/profile.ts'))};
const profile = createProfile({});
const config = validateSettings({ cliPath: ${JSON.stringify(cli.path)}, cliWorkDir: ${JSON.stringify(join(base, 'work'))}, dataDir: ${JSON.stringify(join(base, 'data'))}, cliPoolSize: 0, cliLiveMax: 4 }, profile);
const backend = new CliBackend({ config, profile, logger: createLogger('silent'), findCli: () => ({ path: ${JSON.stringify(cli.path)}, searched: [] }), cliEnv: ${JSON.stringify(childEnv)} });
for await (const _ of backend.stream({ model: 'claude-sonnet-4-20250514', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }, new AbortController().signal)) void _;
`,
      );
      const proxy = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, stdio: 'ignore' });
      try {
        await expect.poll(async () => (await cli.chatRecords()).length, { timeout: 15_000 }).toBe(1);
        const [record] = await cli.chatRecords();
        expect(alive(record.pid)).toBe(true);
        proxy.kill('SIGKILL');
        await expect.poll(() => alive(record.pid), { timeout: 5000 }).toBe(false);
      } finally {
        proxy.kill('SIGKILL');
        await cli.cleanup();
        await rm(base, { recursive: true, force: true });
      }
    }, 30_000);
  },
);
