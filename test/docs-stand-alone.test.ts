// The project stands alone: a newcomer who clones it can follow every citation. Code, tests, the bench, the scripts
// and the docs cite the project's own pages (docs/interface.md "Errors", docs/principles.md "Step and finish"),
// never a document outside the repository, nor its section numbers. The outside names are built from pieces below,
// so this file does not cite them itself.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');

/** The documents that once lived beside the project, outside it. */
const outsideNames = ['SP' + 'EC', 'ST' + 'YLE', 'PE' + 'ERS', 'DE' + 'SIGN'];
const outsideFolder = '..' + '/shared';
const section = String.fromCharCode(0xa7);

/** A citation of an outside document: its file name, its bare name as a word, or a section sign and a number (an
 * RFC's sections, "RFC 9110 <sign>7.6.1", are fine). */
const citation = new RegExp(
  [
    `\\b(?:${outsideNames.join('|')})\\.md\\b`,
    `\\b(?:${outsideNames.join('|')})\\b`,
    `(?<!RFC \\d+ )${section}\\s*\\d`,
    outsideFolder.replace(/[./]/g, '\\$&') + '\\b',
  ].join('|'),
);

const scannedRoots = ['src', 'docs', 'test', 'bench', 'scripts', '.ci'];
const scannedExtensions = /\.(?:ts|mts|cts|js|mjs|cjs|md|html|css|sh|ya?ml)$|^run$/;
const skippedDirs = new Set(['node_modules', '.cache', 'dist', 'test-artifacts', 'results']);

function walk(dir: string, out: string[] = []): string[] {
  if (!existsSync(join(root, dir))) return out;
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!skippedDirs.has(entry.name)) walk(path, out);
    } else if (scannedExtensions.test(entry.name)) out.push(path);
  }
  return out;
}

/** The files scanned: the roots above, the README, and the configuration files at the top of the repository. */
const scanned = [
  ...scannedRoots.flatMap((dir) => walk(dir)),
  'README.md',
  ...readdirSync(root).filter((f) => /\.(?:json|ts|js|mjs|cjs|ya?ml)$/.test(f) && statSync(join(root, f)).isFile()),
];

/** A line with the in-repository imports of src/shared taken out: src/renderer's import of src/shared/modes.ts is
 * a module of this project, not a citation of the outside folder of the same name. */
function withoutSharedImports(path: string, line: string): string {
  return line.replace(/(['"])((?:\.\.\/)+shared\/[\w./-]+)\1/g, (whole, _quote: string, spec: string) => {
    const target = resolve(root, dirname(path), spec.replace(/\.js$/, '.ts'));
    return relative(root, target).startsWith('src/shared/') && existsSync(target) ? '' : whole;
  });
}

describe('the project stands alone', () => {
  it('has the files it scans', () => {
    expect(scanned).toContain('src/proxy/server.ts');
    expect(scanned).toContain('docs/interface.md');
    expect(scanned).toContain('test/docs-stand-alone.test.ts');
    expect(scanned.length).toBeGreaterThan(300);
  });

  it('knows a citation when it sees one', () => {
    const flagged = (path: string, line: string) => citation.test(withoutSharedImports(path, line));
    for (const name of outsideNames) {
      expect(flagged('src/a.ts', `// the error shapes (${name}.md ${section}7.1)`)).toBe(true);
      expect(flagged('src/a.ts', `// as ${name} says`)).toBe(true);
    }
    expect(flagged('src/a.ts', `// the shapes (${section}7.1)`)).toBe(true);
    expect(flagged('README.md', `what ${outsideFolder}/ says`)).toBe(true);
    expect(flagged('src/renderer/views.ts', `import { modeNames } from '${outsideFolder}/modes.js';`)).toBe(false);
    expect(flagged('src/proxy/usage/types.ts', `import type { ModeName } from '../${outsideFolder}/modes.js';`)).toBe(
      false,
    );
    expect(flagged('test/a.ts', `import { x } from '${outsideFolder}/modes.js';`)).toBe(true);
    expect(flagged('src/a.ts', `// hop-by-hop headers (RFC 9110 ${section}7.6.1)`)).toBe(false);
    expect(flagged('src/a.ts', '// the compatible error shape (docs/interface.md "Compatible errors")')).toBe(false);
  });

  it('cites no document outside the repository, nor its section numbers', () => {
    const found: string[] = [];
    for (const path of scanned) {
      read(path)
        .split('\n')
        .forEach((line, i) => {
          const match = citation.exec(withoutSharedImports(path, line));
          if (match) found.push(`${path}:${i + 1}: ${match[0]} in ${line.trim().slice(0, 100)}`);
        });
    }
    expect(found, 'cite a section of docs/ instead (docs/interface.md "Errors")').toEqual([]);
  });

  it('cites only pages that exist in docs/', () => {
    const pages = new Set(readdirSync(join(root, 'docs')));
    const missing: string[] = [];
    for (const path of scanned) {
      if (path.startsWith('docs/')) continue;
      read(path)
        .split('\n')
        .forEach((line, i) => {
          for (const [, page] of line.matchAll(/\bdocs\/([\w.-]+\.md)\b/g))
            if (!pages.has(page)) missing.push(`${path}:${i + 1}: docs/${page}`);
        });
    }
    for (const page of pages) {
      if (!page.endsWith('.md')) continue;
      for (const [, target] of read(`docs/${page}`).matchAll(/\]\(([\w.-]+\.md)(?:#[\w-]*)?\)/g))
        if (!pages.has(target)) missing.push(`docs/${page}: ${target}`);
    }
    expect(missing).toEqual([]);
  });

  // Every page of docs/: a section cited of one must be one of its headings (or the start of one, up to a colon or
  // parenthesis).
  const checkedPages = readdirSync(join(root, 'docs')).filter((page) => page.endsWith('.md'));

  it('cites sections of docs pages that exist', () => {
    const normal = (s: string) => s.replace(/`/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
    const headings = new Map(
      checkedPages.map((page) => [
        page,
        [
          ...read(`docs/${page}`)
            .replace(/^```[\s\S]*?^```/gm, '')
            .matchAll(/^#{1,6} (.+)$/gm),
        ].map((m) => normal(m[1])),
      ]),
    );
    const exists = (page: string, name: string) =>
      headings
        .get(page)!
        .some((h) => h === normal(name) || (/^[:( ]/.test(h.slice(normal(name).length)) && h.startsWith(normal(name))));
    const pages = checkedPages.map((p) => p.replace('.', '\\.')).join('|');
    // The page, then one or more quoted section names; a comment's line breaks (and their `//`, `*` or `#`) are spaces,
    // and so are a Markdown paragraph's.
    const cite = new RegExp(`\\b(${pages})(?:\\]\\([^)]*\\))?\\)?,? ((?:"[^"\\n]+"(?:, )?)+)`, 'g');
    const broken: string[] = [];
    let checked = 0;
    for (const path of scanned) {
      const lineBreak = path.endsWith('.md') ? /\n[ \t]*/g : /\n\s*(?:\/\/|\*(?!\/)|#)[ \t]?/g;
      const text = read(path).replace(lineBreak, ' ');
      for (const [, page, names] of text.matchAll(cite))
        for (const [, name] of names.matchAll(/"([^"]+)"/g)) {
          checked++;
          if (!exists(page, name)) broken.push(`${path}: ${page} "${name}"`);
        }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(200);
  });
});
