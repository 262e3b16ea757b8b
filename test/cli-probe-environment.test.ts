// The CLI health probe runs the CLI with the same environment as chat children: without the proxy's own
// PROXY_ACCESS_KEY, also when no child environment is given (docs/tool-mode.md).
import { afterEach, describe, expect, it } from 'vitest';
import type { RunCommand } from '../src/proxy/health/cli-probe.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';

let cli: FakeCli | undefined;
let proxy: TestProxy | undefined;
const saved = process.env.PROXY_ACCESS_KEY;
afterEach(async () => {
  await proxy?.close();
  await cli?.cleanup();
  if (saved === undefined) delete process.env.PROXY_ACCESS_KEY;
  else process.env.PROXY_ACCESS_KEY = saved;
});

describe('CLI health probe environment', () => {
  it("never passes the proxy's access key to the CLI", async () => {
    process.env.PROXY_ACCESS_KEY = 'proxy-own-secret-key-0123456789';
    cli = await makeFakeCli();
    const seen: Array<NodeJS.ProcessEnv | undefined> = [];
    const run: RunCommand = async (_file, args, opts) => {
      seen.push(opts.env);
      const out = args.includes('--version') ? '1.0.0 (fake)' : JSON.stringify({ loggedIn: true, authMethod: 'oauth' });
      return { exitCode: 0, stdout: out, stderr: '', timedOut: false };
    };
    proxy = await startProxy({ cliPath: cli.path, modes: ['tool'] }, { deps: { run } });
    expect(seen.length).toBeGreaterThan(0);
    for (const env of seen) {
      expect(env).toBeDefined();
      expect(env?.PROXY_ACCESS_KEY).toBeUndefined();
      expect(env?.PATH).toBe(process.env.PATH);
    }
  });
});
