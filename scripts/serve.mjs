#!/usr/bin/env node
// `npm run serve`: starts the headless proxy from the built JavaScript (dist/proxy/cli.js), not by compiling the
// TypeScript sources at every start. It builds first (tsc -p tsconfig.serve.json, which compiles src/proxy and
// src/shared into dist/ without a type check) only when dist/proxy/cli.js is missing or older than a file under
// src/proxy or src/shared, so a fresh clone and an edited checkout both start what their sources say. Everything it
// needs (typescript, the project's Node) is a dependency, so `npm install --omit=dev` is enough to serve
// (docs/install.md).
//
// The proxy runs in this very process (an import, not a child), so SIGINT and SIGTERM reach its handlers directly,
// with no compiler or wrapper process in between; command-line options pass through unchanged.

import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import { URL, fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const entry = join(root, 'dist', 'proxy', 'cli.js');
const sources = [join(root, 'src', 'proxy'), join(root, 'src', 'shared')];

/** Newest modification time of the non-test TypeScript files under dir. */
function newestSource(dir) {
  let newest = 0;
  for (const item of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, item.name);
    if (item.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (item.name.endsWith('.ts') && !item.name.endsWith('.test.ts'))
      newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  if (!existsSync(entry)) return 'dist/proxy/cli.js is missing';
  return Math.max(...sources.map(newestSource)) > statSync(entry).mtimeMs
    ? 'src/proxy or src/shared changed since the last build'
    : undefined;
}

const reason = needsBuild();
if (reason) {
  process.stderr.write(`assistant-proxy: building (${reason}): tsc -p tsconfig.serve.json\n`);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.serve.json'], { cwd: root, stdio: 'inherit' });
  // tsc still writes its output when it reports an error; start that output only if it is really new.
  if (built.status !== 0) {
    if (!existsSync(entry) || needsBuild()) {
      process.stderr.write('assistant-proxy: the build failed (see above); fix it or run `npm run build`\n');
      process.exit(1);
    }
    process.stderr.write('assistant-proxy: the build reported type errors (see above); starting what it produced\n');
  }
}

await import(pathToFileURL(entry).href);
