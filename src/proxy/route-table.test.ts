import { describe, expect, it } from 'vitest';
import { validateSettings } from './config.js';
import { modeNames } from '../shared/modes.js';
import {
  declaredRoute,
  familyOf,
  inLedgerScope,
  isProbePath,
  isProbeRoute,
  routeOf,
  routeTable,
} from './route-table.js';
import { createProxy } from './server.js';
import { createLogger } from './logger.js';

describe('the route table', () => {
  it('is exactly what the proxy registers, every route once', async () => {
    const proxy = createProxy({
      config: validateSettings({ port: 0, cliPoolSize: 0, ollamaPort: 0 }),
      logger: createLogger('silent'),
      usage: undefined,
    });
    // Both listeners' routers: the main one and the Ollama listener's (docs/ollama.md).
    const routers = [proxy.app, proxy.ollamaApp!].map((app) =>
      app.middleware
        .map((m) => (m as { router?: { stack: Array<{ path: string; methods: string[] }> } }).router)
        .find((r) => r !== undefined)!,
    );
    const registered = routers
      .flatMap((router) => router.stack.map((l) => `${l.methods.filter((m) => m !== 'HEAD').join(',')} ${l.path}`))
      .sort();
    // /usage/* is served only with a readable ledger; this proxy has none.
    const declared = routeTable
      .filter((r) => !r.path.startsWith('/usage/'))
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(registered).toEqual(declared);
    // A path may have rows of several methods, never two of one method.
    expect(new Set(routeTable.map((r) => `${r.method} ${r.path}`)).size).toBe(routeTable.length);
    await proxy.close();
  });

  it('gives every mode routes, and only probes are probes', () => {
    for (const mode of modeNames) expect(routeTable.some((r) => r.mode === mode)).toBe(true);
    expect(routeTable.filter((r) => r.probe).map((r) => r.path)).toEqual(['/health', '/health/detailed', '/metrics']);
  });

  it('refuses to register an undeclared route', () => {
    expect(() => declaredRoute('POST', '/v2/messages')).toThrow(/declares no route POST \/v2\/messages/);
    expect(() => declaredRoute('GET', '/v1/messages')).toThrow(/declares no route GET/);
    expect(declaredRoute('POST', '/api/messages')).toMatchObject({ mode: 'direct', family: 'native' });
  });

  it('derives the error family of any path, in any letter case (docs/interface.md "Errors")', () => {
    expect(familyOf('/compat/v1/chat/completions')).toBe('compat');
    expect(familyOf('/Compat/V1/anything')).toBe('compat');
    expect(familyOf('/respapi/abc/responses')).toBe('compat');
    expect(familyOf('/api/v1/chat/completions')).toBe('compat');
    expect(familyOf('/API/V1/CHAT/COMPLETIONS/')).toBe('compat');
    expect(familyOf('/sdk/models/assistant-x')).toBe('compat');
    expect(familyOf('/api/v1/messages')).toBe('native');
    expect(familyOf('/api/messages')).toBe('native');
    expect(familyOf('/messages')).toBe('native');
    expect(familyOf('/V1/Messages')).toBe('native');
    expect(familyOf('/v1/unknown/thing')).toBe('native');
    expect(familyOf('/api/models/x')).toBe('native');
    expect(familyOf('/health')).toBe('general');
    expect(familyOf('/nowhere')).toBe('general');
    expect(familyOf('/v1x')).toBe('general');
    // The Ollama listener's routes, under its internal prefix: Ollama's shape, and the compatible one on its /v1.
    expect(familyOf('/ollama/api/chat')).toBe('ollama');
    expect(familyOf('/ollama/api/unknown')).toBe('ollama');
    expect(familyOf('/ollama/v1/chat/completions')).toBe('compat');
    expect(familyOf('/ollama/v1/unknown')).toBe('compat');
  });

  it('derives the limiter exemptions, the probe filter and the ledger scope', () => {
    expect(isProbePath('/health')).toBe(true);
    expect(isProbePath('/metrics')).toBe(true);
    expect(isProbePath('/v1/messages')).toBe(false);
    expect(isProbeRoute('/health/detailed')).toBe(true);
    expect(isProbeRoute('unmatched')).toBe(false);
    expect(inLedgerScope('/v1/messages', 'native')).toBe(true);
    expect(inLedgerScope('/api/models', 'native')).toBe(true);
    expect(inLedgerScope('/v1/models', 'native')).toBe(false);
    expect(inLedgerScope('/health', 'general')).toBe(false);
    expect(inLedgerScope('unmatched', 'native')).toBe(true);
    expect(inLedgerScope('unmatched', 'general')).toBe(false);
    expect(routeOf('/respapi/:session_id/responses')).toMatchObject({ mode: 'respapi', ledger: true });
    // Every request of the Ollama listener is a client's traffic, its model lists included.
    expect(inLedgerScope('/ollama/api/tags', 'ollama')).toBe(true);
    expect(inLedgerScope('/ollama/v1/models', 'compat')).toBe(true);
    expect(routeOf('/ollama/api/chat')).toMatchObject({ mode: 'tool', modeBySetting: true });
  });
});
