// The live model catalog (docs/configuration.md "Models"): read from the provider's own list through the CLI login,
// cached owner-only in the data directory, the built-in list as the fallback; every route lists the same catalog,
// and tool mode accepts what the provider lists, including a model the built-in list does not have.

import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Settings } from '../src/proxy/config.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';
import { childEnv, postJson } from './helpers/tool-proxy.js';
import { simulatorOnlyModel, startSimulator, writeCliCredentials, type Simulator } from './simulator/index.js';

let dir: string;
let sim: Simulator;
let cli: FakeCli;
let credentialsPath: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'model-catalog-'));
  sim = await startSimulator();
  cli = await makeFakeCli({});
  credentialsPath = await writeCliCredentials(join(dir, 'login'), {
    accessToken: 'sk-ant-oat01-catalog-token',
    refreshToken: 'sk-ant-ort01-catalog',
    expiresAt: Date.now() + 3_600_000,
  });
});
afterAll(async () => {
  await sim?.close();
  await cli?.cleanup();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function start(settings: Settings, deps: { now?: () => number } = {}): Promise<TestProxy> {
  return startProxy(
    {
      modes: ['tool', 'direct'],
      cliPath: cli.path,
      cliWorkDir: join(dir, 'cli-workdir'),
      apiBaseUrl: sim.url,
      oauthTokenUrl: sim.cliTokenUrl,
      rateLimitPerMinute: 10_000,
      ...settings,
    },
    { deps: { childEnv, readModelsAtStart: true, ...deps } },
  );
}

const ask = (url: string, model: string) =>
  postJson(`${url}/v1/messages`, { model, max_tokens: 50, messages: [{ role: 'user', content: 'say hi' }] });
const lastArgv = async () => (await cli.records()).at(-1)!.argv;
const modelAfterFlag = (argv: string[]) => argv[argv.indexOf('--model') + 1];

async function health(url: string): Promise<Record<string, unknown>> {
  const body = (await (await fetch(`${url}/health/detailed`)).json()) as {
    components: { model_catalog: Record<string, unknown> };
  };
  return body.components.model_catalog;
}

describe('with the provider reachable through the CLI login', () => {
  let proxy: TestProxy;
  const dataDir = () => join(dir, 'data-live');
  beforeAll(async () => {
    proxy = await start({
      credentialsPath,
      dataDir: dataDir(),
      modelAliases: ['gpt-4o=claude-sonnet-4-6', 'newest=claude-sonnet-4-7'],
    });
    await proxy.proxy.catalog.refresh();
  });
  afterAll(async () => {
    await proxy?.close();
  });

  it('reads the list at start, with the CLI login, and health says it is live and when it was read', async () => {
    const read = sim.requests('/v1/models');
    expect(read.length).toBeGreaterThanOrEqual(1);
    expect(read[0].headers.authorization).toBe('Bearer sk-ant-oat01-catalog-token');
    const h = await health(proxy.url);
    expect(h).toMatchObject({ source: 'live', models: 15, default_model: 'assistant-sonnet-4-7' });
    expect(Date.parse(String(h.read_at))).not.toBeNaN();
    expect(proxy.logText()).not.toContain('sk-ant-oat01-catalog-token');
  });

  it('keeps the list owner-only in the data directory', async () => {
    const file = join(dataDir(), 'models.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const cached = JSON.parse(await readFile(file, 'utf8')) as {
      readAt: string;
      models: Array<{ id: string; contextLength?: number }>;
    };
    // The provider's limits and capabilities are kept, so a restart offline still fits requests (docs/models.md).
    expect(cached.models[0]).toEqual({
      id: 'assistant-sonnet-4-7',
      created: simulatorOnlyModel.created,
      contextLength: 1_000_000,
      maxTokens: 128_000,
      capabilities: {
        thinking: ['adaptive'],
        efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
        structuredOutputs: true,
        imageInput: true,
        pdfInput: true,
      },
    });
  });

  it('tool mode accepts a model the provider lists and the built-in list does not, under both its ids', async () => {
    for (const model of [simulatorOnlyModel.id, 'assistant-sonnet-4-7']) {
      const res = await ask(proxy.url, model);
      expect(res.status).toBe(200);
      expect(((await res.json()) as { model: string }).model).toBe('assistant-sonnet-4-7');
      expect(modelAfterFlag(await lastArgv())).toBe('claude-sonnet-4-7');
    }
  });

  it("tool mode accepts today's provider ids and gives the CLI the exact id", async () => {
    for (const [model, cliModel] of [
      ['claude-sonnet-4-6', 'claude-sonnet-4-6'],
      ['claude-opus-4-6', 'claude-opus-4-6'],
      ['claude-haiku-4-5', 'claude-haiku-4-5-20251001'],
      ['assistant-sonnet-4-6', 'claude-sonnet-4-6'],
      // The family alias is the newest of the family the provider lists.
      ['sonnet', 'claude-sonnet-4-7'],
      // MODEL_ALIASES may target current ids, and a model only the live list has.
      ['gpt-4o', 'claude-sonnet-4-6'],
      ['newest', 'claude-sonnet-4-7'],
    ]) {
      const res = await ask(proxy.url, model);
      expect(res.status, model).toBe(200);
      expect(modelAfterFlag(await lastArgv()), model).toBe(cliModel);
    }
  });

  it('an older dated id reaches the CLI as that exact id, with a Warning naming its replacement', async () => {
    const res = await ask(proxy.url, 'assistant-opus-4-20250514');
    expect(res.status).toBe(200);
    expect(modelAfterFlag(await lastArgv())).toBe('claude-opus-4-20250514');
    expect(res.headers.get('warning')).toBe(
      '299 - "The model assistant-opus-4-20250514 is deprecated; use assistant-opus-4-6 instead"',
    );
    expect(
      proxy
        .logs()
        .some(
          (l) => l.model === 'assistant-opus-4-20250514' && String(l.msg).includes('use assistant-opus-4-6 instead'),
        ),
    ).toBe(true);
    const current = await ask(proxy.url, 'claude-sonnet-4-6');
    expect(current.headers.get('warning')).toBeNull();
  });

  it('every route lists the same catalog, with context lengths, and names it live', async () => {
    const paths = ['/v1/models', '/compat/v1/models', '/sdk/models', '/cc/v1/models', '/api/models', '/api/v1/models'];
    const lists = await Promise.all(
      paths.map(async (p) => {
        const res = await fetch(`${proxy.url}${p}`);
        expect(res.status, p).toBe(200);
        expect(res.headers.get('x-proxy-models-source'), p).toBe('live');
        return ((await res.json()) as { data: Array<{ id: string; context_length?: number }> }).data;
      }),
    );
    for (const list of lists.slice(1)) expect(list).toEqual(lists[0]);
    expect(lists[0][0]).toMatchObject({
      id: 'assistant-sonnet-4-7',
      context_length: 1_000_000,
      object: 'model',
      owned_by: 'anthropic',
    });
    expect(lists[0].map((m) => m.id)).toEqual(proxy.proxy.catalog.ids);
    // The window lists the same catalog.
    expect(proxy.proxy.catalog.models.map((m) => m.id)).toEqual(lists[0].map((m) => m.id));
  });

  it('a single model answers under either id and an alias', async () => {
    for (const id of ['claude-sonnet-4-7', 'assistant-sonnet-4-7', 'sonnet']) {
      const res = await fetch(`${proxy.url}/v1/models/${id}`);
      expect(res.status, id).toBe(200);
      expect(((await res.json()) as { id: string }).id).toBe('assistant-sonnet-4-7');
    }
  });
});

describe('without a login', () => {
  it('lists the saved copy after a restart (cached), and the built-in list with no copy (fallback)', async () => {
    const missing = join(dir, 'no-login.json');
    const cached = await start({ credentialsPath: missing, dataDir: join(dir, 'data-live') });
    try {
      await cached.proxy.catalog.refresh();
      expect(await health(cached.url)).toMatchObject({ source: 'cached', models: 15, last_error: expect.any(String) });
      const res = await fetch(`${cached.url}/compat/v1/models`);
      expect(res.headers.get('x-proxy-models-source')).toBe('cached');
      expect(((await res.json()) as { data: Array<{ id: string }> }).data[0].id).toBe('assistant-sonnet-4-7');
      expect((await ask(cached.url, 'claude-sonnet-4-7')).status).toBe(200);
    } finally {
      await cached.close();
    }
    const fallback = await start({ credentialsPath: missing, dataDir: join(dir, 'data-empty') });
    try {
      await fallback.proxy.catalog.refresh();
      const h = await health(fallback.url);
      expect(h).toMatchObject({ source: 'fallback', read_at: null, default_model: 'assistant-sonnet-4-6' });
      const res = await fetch(`${fallback.url}/v1/models`);
      expect(res.headers.get('x-proxy-models-source')).toBe('fallback');
      const ids = ((await res.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id);
      expect(ids.slice(0, 2)).toEqual(['assistant-opus-5-5', 'assistant-opus-4-7']);
      // Today's ids work offline too.
      expect((await ask(fallback.url, 'claude-haiku-4-5')).status).toBe(200);
    } finally {
      await fallback.close();
    }
  });

  it('an unknown id re-reads the list at most once a minute', async () => {
    let clock = Date.now();
    const later = join(dir, 'later-login');
    const p = await start(
      { credentialsPath: join(later, '.credentials.json'), dataDir: join(dir, 'data-later') },
      { now: () => clock },
    );
    try {
      await p.proxy.catalog.refresh();
      expect(await health(p.url)).toMatchObject({ source: 'fallback' });
      // The user logs in; within the minute an unknown id is refused without asking again.
      await writeCliCredentials(later, {
        accessToken: 'sk-ant-oat01-later',
        refreshToken: 'sk-ant-ort01-later',
        expiresAt: Date.now() + 3_600_000,
      });
      sim.reset();
      expect((await ask(p.url, 'claude-sonnet-4-7')).status).toBe(404);
      expect(sim.requests('/v1/models')).toHaveLength(0);
      clock += 61_000;
      expect((await ask(p.url, 'claude-sonnet-4-7')).status).toBe(200);
      expect(sim.requests('/v1/models')).toHaveLength(1);
      expect(await health(p.url)).toMatchObject({ source: 'live' });
      // A name the provider does not list either: refused, and not asked again within the minute.
      const res = await ask(p.url, 'claude-nonexistent-9');
      expect(res.status).toBe(404);
      expect(((await res.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
      expect(sim.requests('/v1/models')).toHaveLength(1);
    } finally {
      await p.close();
    }
  });
});
