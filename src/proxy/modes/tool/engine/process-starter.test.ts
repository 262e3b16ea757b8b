import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeFakeCli, type FakeCli } from '../../../../../test/fixtures/fake-cli.js';
import { childEnv } from '../../../../../test/helpers/tool-proxy.js';
import { validateSettings, type Settings } from '../../../config.js';
import { createLogger } from '../../../logger.js';
import { createProfile } from '../../../profile.js';
import { ProcessStarter } from './process-starter.js';

const profile = createProfile({});
let cli: FakeCli | undefined;
let base: string | undefined;
let starter: ProcessStarter | undefined;

afterEach(async () => {
  starter?.close();
  await cli?.cleanup();
  if (base) await rm(base, { recursive: true, force: true });
  starter = cli = base = undefined;
});

async function make(settings: Settings = {}, found = true): Promise<ProcessStarter> {
  const fake = (cli = await makeFakeCli());
  base = await mkdtemp(join(tmpdir(), 'starter-'));
  const config = validateSettings(
    { cliPath: fake.path, cliWorkDir: join(base, 'work'), dataDir: join(base, 'data'), cliMaxRetries: 2, ...settings },
    profile,
  );
  starter = new ProcessStarter({
    config,
    profile,
    logger: createLogger('silent'),
    findCli: () => ({ path: found ? fake.path : undefined, searched: [] }),
    cliEnv: childEnv,
  });
  return starter;
}

describe('ProcessStarter', () => {
  it('gives a process its system prompt in an owner-only file, never on the command line, removed when it exits', async () => {
    const s = await make();
    const path = await s.prepare();
    const args = [...profile.cli.printArgs, profile.cli.modelFlag, 'assistant-x'];
    const proc = s.start(path, { args, env: {}, systemPrompt: 'Be a secret pirate.' }, 'the-key');
    expect(proc).toMatchObject({ key: 'the-key', model: 'assistant-x', state: 'warm' });
    proc.write('{"type":"user","message":{"role":"user","content":"hi"}}\n');
    proc.endInput();
    await proc.exited;
    const [record] = await cli!.chatRecords();
    expect(record.argv.join(' ')).not.toContain('pirate');
    const file = record.argv[record.argv.indexOf(profile.cli.systemPromptFileFlag) + 1];
    expect(file.startsWith(join(base!, 'data'))).toBe(true);
    expect(existsSync(file)).toBe(false);
    expect(record.cwd).toBe(join(base!, 'work'));
  });

  it("bounds the CLI's retries in the child's environment", async () => {
    const s = await make();
    expect(s.childEnv()[profile.cli.maxRetriesEnv]).toBe('2');
  });

  it('reports a CLI found nowhere as a 503 that names the install hint, not to be retried', async () => {
    const s = await make({}, false);
    expect(() => s.cliPath()).toThrow(expect.objectContaining({ kind: 'unavailable', retryable: false }) as Error);
    await expect(s.prepare()).rejects.toThrow(profile.cli.installHint);
  });

  it('reports a working directory it cannot create as a 500 that names CLI_WORKDIR', async () => {
    const blocked = join(tmpdir(), `starter-file-${process.pid}`);
    await writeFile(blocked, 'a file, not a directory');
    try {
      const s = await make({ cliWorkDir: blocked });
      await expect(s.prepare()).rejects.toMatchObject({
        kind: 'internal',
        message: expect.stringContaining('CLI_WORKDIR') as string,
      });
      expect(statSync(blocked).isFile()).toBe(true);
    } finally {
      await rm(blocked, { force: true });
    }
  });
});
