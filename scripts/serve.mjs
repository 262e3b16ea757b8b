#!/usr/bin/env node
// `npm run serve`: starts the headless proxy from the built JavaScript (dist/proxy/cli.js), not by compiling the
// TypeScript sources at every start. It builds first (tsc -p tsconfig.build.json, which compiles src/proxy,
// src/shared and src/main into dist/) only when dist/proxy/cli.js is missing or older than a file under src/proxy
// or src/shared, so a fresh clone and an edited checkout both start what their sources say.
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
    else if (item.name.endsWith('.ts') && !item.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

function needsBuild() {
  if (!existsSync(entry)) return 'dist/proxy/cli.js is missing';
  return Math.max(...sources.map(newestSource)) > statSync(entry).mtimeMs ? 'src/proxy or src/shared changed since the last build' : undefined;
}

const reason = needsBuild();
if (reason) {
  // --noCheck: serving needs the JavaScript, not a type check (`npm run check` does that); the check was two thirds
  // of a first start (58 s of 68 s on a busy 2-core machine, 21 s without it).
  process.stderr.write(`assistant-proxy: building once (${reason}): tsc -p tsconfig.build.json --noCheck\n`);
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--noCheck'], { cwd: root, stdio: 'inherit' });
  // tsc still writes its output when it finds a type error; start that output only if it is really new.
  if (built.status !== 0) {
    if (!existsSync(entry) || needsBuild()) {
      process.stderr.write('assistant-proxy: the build failed (see above); fix it or run `npm run build`\n');
      process.exit(1);
    }
    process.stderr.write('assistant-proxy: the build reported type errors (see above); starting what it produced\n');
  }
}

await import(pathToFileURL(entry).href);
