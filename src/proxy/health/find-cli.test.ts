import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findCli } from './find-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'find-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('findCli', () => {
  it("leaves npm's own node-gyp shim folder out of the search and of the places it reports", () => {
    const npmShim = join(
      dir,
      'lib',
      'node_modules',
      'npm',
      'node_modules',
      '@npmcli',
      'run-script',
      'lib',
      'node-gyp-bin',
    );
    const bin = join(dir, 'bin');
    mkdirSync(npmShim, { recursive: true });
    mkdirSync(bin);
    const found = findCli({
      names: ['claude'],
      extraPaths: [],
      envPath: [npmShim, bin].join(delimiter),
      platform: 'linux',
    });
    expect(found).toEqual({ searched: [join(bin, 'claude')] });
    writeFileSync(join(bin, 'claude'), '#!/bin/sh\n');
    chmodSync(join(bin, 'claude'), 0o755);
    expect(
      findCli({ names: ['claude'], extraPaths: [], envPath: [npmShim, bin].join(delimiter), platform: 'linux' }).path,
    ).toBe(join(bin, 'claude'));
  });
});
