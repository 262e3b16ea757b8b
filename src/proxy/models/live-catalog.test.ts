import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';

import { tmpdir } from 'node:os';

import { join } from 'node:path';

import { Writable } from 'node:stream';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import { createLogger } from '../logger.js';

import { createProfile } from '../profile.js';
import { LiveModelCatalog } from './live-catalog.js';
import type { ModelInfo } from '../profile-models.js';

const profile = createProfile();
let dir: string;
let logText: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'live-catalog-'));
  logText = '';
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function catalog(fetchModels: (signal: AbortSignal) => Promise<ModelInfo[]>, now = () => Date.now()) {
  const sink = new Writable({
    write(chunk, _enc, cb) {
      logText += chunk.toString();
      cb();
    },
  });
  return new LiveModelCatalog({
    profile,
    userAliases: [],
    dataDir: dir,
    fetchModels,
    logger: createLogger('info', sink),
    now,
  });
}

const listed: ModelInfo[] = [
  { id: 'assistant-sonnet-4-7', created: 1_790_000_000 },
  { id: 'assistant-haiku-4-5-20251001', created: 1759276800 },
];

describe('LiveModelCatalog', () => {
  it('reads one list at a time: callers during a read share it', async () => {
    let calls = 0;
    let release: () => void = () => undefined;
    const c = catalog(async () => {
      calls++;
      await new Promise<void>((r) => (release = r));
      return listed;
    });
    const a = c.refresh();
    const b = c.refresh();
    release();
    await Promise.all([a, b]);
    expect(calls).toBe(1);
    expect(c.snapshot()).toMatchObject({ source: 'live', count: 2 });
    // Context lengths the provider did not give come from the built-in list.
    expect(c.models.find((m) => m.id === 'assistant-haiku-4-5-20251001')?.contextLength).toBe(200_000);
  });

  it('keeps the list in use when a read fails, with the reason redacted', async () => {
    const c = catalog(async () => {
      throw new Error('refused token sk-ant-oat01-secret-value-123456789');
    });
    await c.refresh();
    expect(c.snapshot()).toMatchObject({ source: 'fallback' });
    expect(c.snapshot().lastError).toContain('refused token');
    expect(c.snapshot().lastError).not.toContain('sk-ant-oat01-secret-value-123456789');
    expect(logText).not.toContain('sk-ant-oat01-secret-value-123456789');
    expect(c.defaultModel).toBe('assistant-sonnet-4-6');
  });

  it('writes the cache owner-only, even over a looser older file', async () => {
    const file = join(dir, 'models.json');
    await writeFile(file, 'old');
    await chmod(file, 0o644);
    await catalog(async () => listed).refresh();
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({
      version: 1,
      models: [{ id: 'assistant-sonnet-4-7' }, { id: 'assistant-haiku-4-5-20251001' }],
    });
  });

  it('starts from a readable cache, and from the built-in list when the cache is damaged', async () => {
    await catalog(async () => listed).refresh();
    const cached = catalog(async () => []);
    expect(cached.snapshot()).toMatchObject({ source: 'cached', count: 2 });
    expect(cached.ids[0]).toBe('assistant-sonnet-4-7');
    await writeFile(join(dir, 'models.json'), '{"version":1,');
    const damaged = catalog(async () => []);
    expect(damaged.snapshot()).toMatchObject({ source: 'fallback' });
    expect(logText).toContain('model catalog cache unreadable');
  });

  it('an unknown id reads again at most once a minute; a no-cache ask within seconds does not', async () => {
    let clock = 1_000_000;
    let calls = 0;
    const c = catalog(
      async () => {
        calls++;
        return listed;
      },
      () => clock,
    );
    await expect(c.resolveFresh('claude-sonnet-4-7')).resolves.toMatchObject({ id: 'assistant-sonnet-4-7' });
    expect(calls).toBe(1);
    await expect(c.resolveFresh('claude-nope')).rejects.toMatchObject({ kind: 'model_not_found' });
    expect(calls).toBe(1);
    await c.refreshUnlessRecent(5_000);
    expect(calls).toBe(1);
    clock += 60_000;
    await expect(c.resolveFresh('claude-nope')).rejects.toMatchObject({ kind: 'model_not_found' });
    expect(calls).toBe(2);
  });
});
