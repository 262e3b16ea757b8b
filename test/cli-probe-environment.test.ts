// Every CLI run the proxy starts gets the children's environment (health/cli-env.ts): the server's health probe and
// diagnose's probe runs (`--version`, `auth status`) alike, without the proxy's own PROXY_ACCESS_KEY, also when no
// child environment is given (docs/tool-mode.md, docs/security.md). Diagnose used to hand the CLI the whole
// environment, key included.
import { afterEach, describe, expect, it } from 'vitest';
import type { RunCommand } from '../src/proxy/health/cli-probe.js';
import { validateSettings } from '../src/proxy/config.js';
import { diagnose } from '../src/proxy/diagnose/index.js';
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

  it("diagnose's probe runs never get the proxy's access key either", async () => {
    const key = 'proxy-own-secret-key-0123456789';
    process.env.PROXY_ACCESS_KEY = key;
    cli = await makeFakeCli();
    const seen: Array<{ args: string[]; env: NodeJS.ProcessEnv | undefined }> = [];
    const run: RunCommand = async (_file, args, opts) => {
      seen.push({ args, env: opts.env });
      const out = args.includes('--version') ? '1.0.0 (fake)' : JSON.stringify({ loggedIn: false });
      return { exitCode: 0, stdout: out, stderr: '', timedOut: false };
    };
    // Only the CLI checks: tool mode with no test request target (the CLI is "logged out", so none is sent).
    await diagnose(validateSettings({ cliPath: cli.path, modes: ['tool'], logLevel: 'silent', accessKey: key }), {
      deps: { run },
    });
    expect(seen.map((s) => s.args.join(' '))).toEqual(expect.arrayContaining([expect.stringContaining('--version')]));
    for (const { env } of seen) {
      expect(env).toBeDefined();
      expect(env?.PROXY_ACCESS_KEY).toBeUndefined();
      expect(JSON.stringify(env)).not.toContain(key);
      expect(env?.PATH).toBe(process.env.PATH);
    }
  });
});
