// The one rule between layers (docs/architecture.md "Layers, and the one rule between them"), checked on the sources:
// src/proxy never imports electron (or the app), and the renderer takes nothing from src/proxy but types from
// control-api.ts.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src/', import.meta.url));
function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : /\.(c|m)?ts$/.test(name) ? [p] : [];
  });
}
const importsOf = (file: string) =>
  [
    ...readFileSync(file, 'utf8').matchAll(
      /^\s*(import|export)\s+(type\s+)?[^'"]*?from\s+['"]([^'"]+)['"]|^\s*import\s+['"]([^'"]+)['"]/gm,
    ),
  ].map((m) => ({ type: Boolean(m[2]), spec: m[3] ?? m[4] }));

describe('layers', () => {
  it('src/proxy never imports electron, src/main or src/renderer', () => {
    const bad = files(join(src, 'proxy')).flatMap((f) =>
      importsOf(f)
        .filter((i) => /^electron(\/|$)|\/main\/|\/renderer\//.test(i.spec))
        .map((i) => `${f}: ${i.spec}`),
    );
    expect(bad).toEqual([]);
  });

  it('src/renderer imports only types from src/proxy/control-api.ts and no Node modules', () => {
    // The page's own modules only: its unit tests run in Node beside them (the settings form's against the schema).
    const bad = files(join(src, 'renderer'))
      .filter((f) => !f.endsWith('.test.ts'))
      .flatMap((f) =>
        importsOf(f)
          .filter(
            (i) =>
              (i.spec.includes('/proxy/') && !(i.type && i.spec.endsWith('/proxy/control-api.js'))) ||
              i.spec.startsWith('node:') ||
              i.spec === 'electron',
          )
          .map((i) => `${f}: ${i.spec}`),
      );
    expect(bad).toEqual([]);
  });

  it('src/shared imports nothing: the window and the proxy both load it', () => {
    const bad = files(join(src, 'shared'))
      .filter((f) => !f.endsWith('.test.ts'))
      .flatMap((f) =>
        importsOf(f)
          .filter((i) => !i.spec.startsWith('./'))
          .map((i) => `${f}: ${i.spec}`),
      );
    expect(bad).toEqual([]);
  });

  it('only index.ts and the preload load electron at runtime in src/main', () => {
    const runtime = files(join(src, 'main')).filter((f) => importsOf(f).some((i) => i.spec === 'electron' && !i.type));
    expect(runtime.map((f) => f.slice(src.length)).sort()).toEqual(['main/index.ts', 'main/preload.cts']);
  });
  it("src/proxy's folders and top-level files import each other in no loop (docs/architecture.md floors)", () => {
    // A room is a top-level file or folder of src/proxy; an import between two rooms in a loop is one that runs
    // back up. Tests and fixtures are not rooms: they may reach anywhere.
    const proxy = join(src, 'proxy');
    const roomOf = (file: string) => relative(proxy, file).split('/')[0];
    const edges = new Map<string, Set<string>>();
    for (const f of files(proxy).filter((f) => !f.endsWith('.test.ts') && !f.includes('__fixtures__'))) {
      for (const { spec } of importsOf(f).filter((i) => i.spec.startsWith('.'))) {
        const target = resolve(dirname(f), spec);
        if (!target.startsWith(proxy + '/')) continue;
        const [from, to] = [roomOf(f), roomOf(target)];
        if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
      }
    }
    const loops: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (room: string, path: string[]) => {
      state.set(room, 'open');
      for (const next of edges.get(room) ?? []) {
        if (state.get(next) === 'open') loops.push([...path.slice(path.indexOf(next)), room, next].join(' -> '));
        else if (!state.has(next)) visit(next, [...path, room]);
      }
      state.set(room, 'done');
    };
    for (const room of edges.keys()) if (!state.has(room)) visit(room, []);
    expect(edges.size).toBeGreaterThan(10);
    expect(loops).toEqual([]);
  });
});
