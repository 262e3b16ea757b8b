// The project's runtime (docs/install.md "Which Node runs it"): npm puts node_modules/.bin first on PATH, so the tests run
// on the Node the project brings (the devDependency `node`) even where the machine's own Node is older, and so do
// the child processes they start, by process.execPath or by the name `node`.

import { execFileSync } from 'node:child_process';
import { readFileSync, realpathSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
};

const parts = (v: string) =>
  v
    .replace(/^[^\d]*/, '')
    .split('.')
    .map(Number);
const atLeast = (v: string, min: string) => {
  const [a, b] = [parts(v), parts(min)];
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
};

describe('the runtime the project brings', () => {
  it("runs the tests on a Node that satisfies engines, with the runtime's own SQLite", async () => {
    expect(pkg.engines.node).toMatch(/^>=\d+\.\d+$/);
    expect(atLeast(process.versions.node, pkg.engines.node.slice(2))).toBe(true);
    const { DatabaseSync } = await import('node:sqlite');
    const db = new DatabaseSync(':memory:');
    expect(db.prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
    db.close();
  });

  it("a child started as `node` is the same Node as the test runner's (the one in node_modules/.bin when run through npm)", () => {
    const child = execFileSync('node', ['-p', 'process.execPath + " " + process.version'], { encoding: 'utf8' })
      .trim()
      .split(' ');
    expect(realpathSync(child[0])).toBe(realpathSync(process.execPath));
    expect(child[1]).toBe(process.version);
    // The pinned major of the dependency is what runs.
    expect(process.versions.node.split('.')[0]).toBe(pkg.dependencies.node.replace(/^\D*/, '').split('.')[0]);
  });
});
