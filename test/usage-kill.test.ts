// The durability promise of docs/usage.md on the whole proxy: `npm run serve` in direct mode under load from
// several clients, killed with SIGKILL. The usage database opens afterwards and holds every request that was
// answered more than a second before the kill.

import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UsageLedger } from '../src/proxy/usage/ledger.js';
import { freePort } from './helpers/free-port.js';
import { startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  sim = await startSimulator();
  dir = await mkdtemp(join(tmpdir(), 'usage-kill-'));
});

afterAll(async () => {
  await sim?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('usage ledger when the proxy is killed', () => {
  it('keeps every request answered more than a second before a kill -9 of the proxy', async () => {
    const credentialsPath = await writeCliCredentials(dir, {
      accessToken: 'sk-ant-oat01-kill-abcdef123456',
      refreshToken: 'sk-ant-ort01-kill-abcdef123456',
      expiresAt: Date.now() + 3_600_000,
    });
    const port = await freePort();
    const dataDir = join(dir, 'data');
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/cli.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: dir, // never the developer's own data directory
        LOG_LEVEL: 'error',
        PORT: String(port),
        MODES: 'direct',
        ASSISTANT_API_BASE_URL: sim.url,
        ASSISTANT_CREDENTIALS_PATH: credentialsPath,
        ASSISTANT_OAUTH_TOKEN_URL: sim.cliTokenUrl,
        RATE_LIMIT_PER_MINUTE: '1000000',
        DATA_DIR: dataDir,
      },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const closed = new Promise((r) => child.once('close', r));
    const url = `http://127.0.0.1:${port}`;
    try {
      const up = Date.now() + 20_000;
      for (;;) {
        const ok = await fetch(`${url}/health`).then(
          () => true,
          () => false,
        );
        if (ok) break;
        if (Date.now() > up) throw new Error('the proxy did not start');
        await new Promise((r) => setTimeout(r, 100));
      }
      const answered: Array<[string, number]> = [];
      let stop = false;
      let n = 0;
      const client = async () => {
        while (!stop) {
          const id = `kill-${n++}`;
          try {
            const res = await fetch(`${url}/api/v1/messages`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-request-id': id },
              body: JSON.stringify({
                model: 'assistant-sonnet-4-20250514',
                max_tokens: 20,
                messages: [{ role: 'user', content: 'hi' }],
              }),
            });
            await res.arrayBuffer();
            if (res.status === 200) answered.push([id, Date.now()]);
          } catch {
            return; // the proxy is gone
          }
        }
      };
      const clients = Array.from({ length: 8 }, client);
      await new Promise((r) => setTimeout(r, 2500));
      const killedAt = Date.now();
      child.kill('SIGKILL');
      stop = true;
      await Promise.all(clients);
      await closed;

      const ledger = UsageLedger.open({ dataDir, retentionDays: 36_500, maxMb: 512 });
      try {
        expect(ledger.inMemory).toBe(false);
        const stored = new Set<string>();
        for await (const line of ledger.exportCsv(0, Date.now() + 1000)) stored.add(line.split(',')[1]);
        const due = answered.filter(([, at]) => at < killedAt - 1000);
        expect(due.length).toBeGreaterThan(50);
        expect(due.filter(([id]) => !stored.has(id))).toEqual([]);
      } finally {
        ledger.close();
      }
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
});
