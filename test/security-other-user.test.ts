// Another local user against the owner's proxy (docs/security.md "The owner's key and the access key"): a child run
// as `nobody` (setpriv) on the same machine, with no key, asks for the owner's usage, detailed health and key file,
// and spreads requests over the loopback range to escape the rate limit; and reads every process's command line while
// a structured-output chat runs in tool mode, looking for the client's schema. Runs where the test runs as root with
// setpriv available (a CI container); skipped with the reason elsewhere.

import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadOwnerKey } from '../src/proxy/auth/owner-key.js';
import { validateSettings } from '../src/proxy/config.js';
import { createLogger } from '../src/proxy/logger.js';
import { createProxy } from '../src/proxy/server.js';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { makeFakeCli } from './fixtures/fake-cli.js';
import { startProxy } from './helpers/proxy.js';

/** The machine's own node for the child: the project's may sit where nobody cannot enter. */
const nodeBin = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;

function whyNot(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not running as root, so a child cannot be started as another user';
  if (!existsSync('/usr/bin/setpriv')) return 'no /usr/bin/setpriv';
  try {
    execFileSync('/usr/bin/setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', nodeBin, '-e', '0'], {
      stdio: 'ignore',
    });
  } catch {
    return `setpriv cannot start ${nodeBin} as nobody`;
  }
  return undefined;
}
const reason = whyNot();
if (reason) console.warn(`[security-other-user.test] skipped: ${reason}`);

/** Runs `code` (an async function body returning JSON) as nobody, and parses what it printed. */
function asNobody(code: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/usr/bin/setpriv',
      [
        '--reuid=nobody',
        '--regid=nogroup',
        '--clear-groups',
        nodeBin,
        '--input-type=module',
        '-e',
        `process.stdout.write(JSON.stringify(await (async () => { ${code} })()))`,
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
        cwd: '/',
        env: { PATH: '/usr/bin:/bin' },
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('exit', (status) =>
      status === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${status}: ${err}`)),
    );
  });
}

describe.skipIf(reason !== undefined)("another local user (nobody) against the owner's proxy", () => {
  let dir: string;
  let proxy: { url: string; port: number; owner: Record<string, string>; close(): Promise<void> };
  let keyFile: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'other-user-'));
    // The temporary folder itself is 0700: let nobody walk into it, as into a home directory of mode 0755.
    await chmod(dir, 0o755);
    const dataDir = join(dir, 'data');
    // The owner's key as `npm run serve` makes it (start-up.ts), and the proxy taking it.
    const owner = loadOwnerKey(dataDir);
    keyFile = owner.path;
    const config = validateSettings({
      port: 0,
      dataDir,
      modes: ['direct'],
      rateLimitPerMinute: 20,
      rateLimitBurst: 0,
      logLevel: 'silent',
    });
    const ledger = UsageLedger.open({ dataDir, retentionDays: 30, maxMb: 16 });
    const server = createProxy({ config, logger: createLogger('silent'), ownerKey: owner.key, usage: ledger });
    const { url, port } = await server.listen();
    proxy = {
      url,
      port,
      owner: { 'x-proxy-access-key': owner.key },
      close: async () => {
        await server.close(200);
        ledger.close();
      },
    };
  });

  afterAll(async () => {
    await proxy?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("cannot read the owner's key file, usage data, or the e-mail and paths of detailed health", async () => {
    const seen = await asNobody(`
      const { readFileSync } = await import('node:fs');
      let key = 'read';
      try { readFileSync(${JSON.stringify(keyFile)}, 'utf8'); } catch (e) { key = e.code; }
      const usage = [];
      for (const p of ['/usage/requests', '/usage/summary', '/usage/limits', '/usage/export.csv']) usage.push((await fetch(${JSON.stringify(proxy.url)} + p)).status);
      const health = await (await fetch(${JSON.stringify(proxy.url)} + '/health/detailed')).json();
      return { uid: process.getuid(), key, usage, health };
    `);
    expect(seen.uid).toBe(65534);
    expect(seen.key).toBe('EACCES');
    expect(seen.usage).toEqual([401, 401, 401, 401]);
    expect(seen.health.components.assistant_cli.path).toBe('');
    expect(seen.health.components.authentication.user).toBeUndefined();
    expect(seen.health.withheld).toMatch(/owner's key/);
    // The owner, with the key, still reads them.
    expect((await fetch(`${proxy.url}/usage/summary`, { headers: proxy.owner })).status).toBe(200);
  });

  it('cannot escape the rate limit by spreading requests over 127.0.0.2–127.0.0.9', async () => {
    const statuses: number[] = await asNobody(`
      const http = await import('node:http');
      const one = (localAddress) => new Promise((resolve, reject) => {
        http.get({ host: '127.0.0.1', port: ${proxy.port}, path: '/', localAddress }, (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject);
      });
      const out = [];
      for (let i = 0; i < 40; i++) out.push(await one('127.0.0.' + (2 + (i % 8))));
      return out;
    `);
    // One budget of 20 for the whole range (the owner's request above drew on it too); before, each address had 20.
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(20);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(20);
  });
});

describe.skipIf(reason !== undefined)("another local user (nobody) reading the CLI's command line", () => {
  it("finds no word of a client's JSON schema in any process's command line while its chat runs", async () => {
    // The conversation is kept live after its answer (CLI_LIVE_MAX), so its CLI child is there while nobody looks.
    const fake = await makeFakeCli({ reply: 'Paris' });
    const dataDir = await mkdtemp(join(tmpdir(), 'other-user-argv-'));
    const proxy = await startProxy({ modes: ['tool'], cliPath: fake.path, dataDir, cliLiveMax: 2 });
    try {
      const schema = {
        type: 'object',
        properties: { code: { type: 'string', description: 'internal code PURPLE-OTTER-4471' } },
      };
      const chat = await fetch(`${proxy.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'assistant-sonnet-4-20250514',
          max_tokens: 64,
          messages: [{ role: 'user', content: 'hi' }],
          output_config: { format: { type: 'json_schema', schema } },
        }),
      });
      expect(chat.status).toBe(200);
      expect((await fake.records()).some((r) => r.jsonSchema !== null)).toBe(true);
      const seen = await asNobody(`
        const { readdirSync, readFileSync } = await import('node:fs');
        const lines = [];
        for (const pid of readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
          try { lines.push(readFileSync('/proc/' + pid + '/cmdline', 'utf8').split('\\0').join(' ')); } catch {}
        }
        return lines;
      `);
      // The wrapper execs node on fake-cli.mjs, with the proxy's flags after it: that is the CLI child's command line.
      const cli = (seen as string[]).filter((l) => l.includes('fake-cli.mjs') && l.includes('--model'));
      expect(cli.length).toBeGreaterThan(0);
      for (const line of seen as string[]) expect(line).not.toMatch(/PURPLE-OTTER|internal code/);
    } finally {
      await proxy.close();
      await fake.cleanup();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
