// No path without the owner's key (docs/security.md "The owner's key and the access key"): every answer a caller
// without the key can get (the open GET / and /health, /health/detailed, the model lists, /metrics, the Ollama
// listener, and the error of every chat route) is read string by string for the owner's home directory, the data
// directory and the CLI's folder. Another local user reads these answers; a path names the owner's account layout.

import { mkdtemp, rm } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '../src/proxy/route-table.js';
import { makeFakeCli, type FakeCli } from './fixtures/fake-cli.js';
import { startProxy, type TestProxy } from './helpers/proxy.js';

/** Every string in a JSON value (keys too), or the text itself when it is not JSON. */
function stringsOf(text: string): string[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [text];
  }
  const out: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') out.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object')
      for (const [k, inner] of Object.entries(v)) {
        out.push(k);
        walk(inner);
      }
  };
  walk(value);
  return out;
}

/** The keyless answers of every route of both listeners of `proxy` (and of an unknown path), each as "METHOD path status". */
async function walk(proxy: TestProxy, forbidden: string[]): Promise<{ checked: string[]; leaks: string[] }> {
  const status = proxy.proxy.ollama();
  if (status.state !== 'listening') throw new Error(`the Ollama listener is ${status.state}`);
  const checked: string[] = [];
  const leaks: string[] = [];
  for (const route of [...routeTable, { method: 'GET' as const, path: '/no/such/path' }]) {
    const onOllama = route.path.startsWith('/ollama');
    const base = onOllama ? status.url : proxy.url;
    const path = (onOllama ? route.path.slice('/ollama'.length) || '/' : route.path)
      .replace(':id', 'assistant-sonnet-4-20250514')
      .replace(':session_id', 'some-session');
    const res = await fetch(base + path, {
      method: route.method,
      headers: route.method === 'GET' ? {} : { 'content-type': 'application/json' },
      body: route.method === 'GET' ? undefined : chatBody(path),
    });
    const text = await res.text();
    checked.push(`${route.method} ${route.path} ${res.status}`);
    for (const s of stringsOf(text))
      for (const p of forbidden) if (s.includes(p)) leaks.push(`${route.method} ${route.path}: ${s.slice(0, 200)}`);
  }
  return { checked, leaks };
}

/** A body each POST route takes as a chat (so that it reaches the CLI, or its absence). */
function chatBody(path: string): string {
  const model = 'assistant-sonnet-4-20250514';
  const messages = [{ role: 'user', content: 'hi' }];
  if (path.endsWith('/responses')) return JSON.stringify({ model, input: 'hi' });
  if (path.endsWith('/generate')) return JSON.stringify({ model, prompt: 'hi', stream: false });
  if (path.startsWith('/api/') && !path.startsWith('/api/v1') && !path.startsWith('/api/messages'))
    return JSON.stringify({ model, messages, stream: false });
  return JSON.stringify({ model, max_tokens: 16, messages });
}

describe('answers without the owner key name no path', () => {
  let cli: FakeCli;
  let proxy: TestProxy;
  let dataDir: string;
  let forbidden: string[];

  beforeAll(async () => {
    cli = await makeFakeCli();
    proxy = await startProxy({
      cliPath: cli.path,
      modes: ['tool', 'direct', 'respapi'],
      metricsEnabled: true,
      ollamaPort: 0,
    });
    dataDir = proxy.proxy.services.config.dataDir;
    // The model catalog's cache file lives in the data directory: make sure it has been looked at.
    await proxy.proxy.catalog?.refresh?.().catch(() => undefined);
    forbidden = [homedir(), dataDir, dirname(cli.path)].filter((p) => p.length > 1);
  });
  afterAll(async () => {
    await proxy?.close();
    await cli?.cleanup();
  });

  it('walks every route of both listeners, and an unknown path, without finding one', async () => {
    const { checked, leaks } = await walk(proxy, forbidden);
    expect(leaks).toEqual([]);
    // The walk reached the answers that matter: the open ones, detailed health, a model list and a chat.
    expect(checked).toContain('GET / 200');
    expect(checked).toContain('GET /health 200');
    expect(checked).toContain('GET /health/detailed 200');
    expect(checked).toContain('GET /v1/models 200');
    expect(checked).toContain('POST /v1/messages 200');
    expect(checked).toContain('GET /usage/summary 401');
  });

  it('shows the owner the catalog file and the CLI path that the keyless record leaves out', async () => {
    const owner = (await (await fetch(`${proxy.url}/health/detailed`, { headers: proxy.owner })).json()) as any;
    expect(owner.components.model_catalog.cache_file.startsWith(dataDir)).toBe(true);
    expect(owner.components.assistant_cli.path).toBe(cli.path);
    const keylessRecord = (await (await fetch(`${proxy.url}/health/detailed`)).json()) as any;
    expect(keylessRecord.components.model_catalog).not.toHaveProperty('cache_file');
    expect(keylessRecord.components.model_catalog.source).toBe(owner.components.model_catalog.source);
    expect(keylessRecord.withheld).toMatch(/owner's key/);
  });
});

describe('without a CLI, the keyless answers name none of the places searched for it', () => {
  let proxy: TestProxy;
  let emptyPath: string;

  beforeAll(async () => {
    emptyPath = await mkdtemp(join(tmpdir(), 'no-cli-path-'));
    // The usual install places under the home directory are searched too (profile.ts extraSearchPaths).
    proxy = await startProxy(
      { modes: ['tool', 'direct', 'respapi'], metricsEnabled: true, ollamaPort: 0 },
      { deps: { envPath: emptyPath } },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await rm(emptyPath, { recursive: true, force: true });
  });

  it('walks every route of both listeners without finding the home, data or PATH folders', async () => {
    const dataDir = proxy.proxy.services.config.dataDir;
    const { checked, leaks } = await walk(proxy, [homedir(), dataDir, emptyPath]);
    expect(leaks).toEqual([]);
    expect(checked).toContain('GET /health 503');
    expect(checked).toContain('POST /v1/messages 503');
    // The owner still reads where the proxy looked.
    const owner = (await (await fetch(`${proxy.url}/health/detailed`, { headers: proxy.owner })).json()) as any;
    expect(owner.components.assistant_cli.searched_paths).toContain(join(emptyPath, 'claude'));
  });
});
