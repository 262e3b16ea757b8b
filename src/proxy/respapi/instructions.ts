// The instruction prompt of response-API mode (docs/respapi-mode.md; docs/interface.md "Modes": an instruction prompt
// is added to every request). Ours comes from a text file: RESPAPI_INSTRUCTIONS_PATH, else
// assets/respapi-instructions.md found beside the package root. It is re-read when the file changes, so editing
// it takes effect without a restart.
//
// The combining rule (docs/respapi-mode.md): ours first, then the client's own instructions (the `instructions`
// field, then the text of system/developer messages in order), each part separated by a blank line. The client's
// text is never dropped or replaced; an empty part is skipped.

import { existsSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProxyError } from '../errors.js';

const assetName = join('assets', 'respapi-instructions.md');

/** Walks up from this module to the directory that holds package.json (works from src/ and from dist/). */
export function defaultInstructionsPath(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, assetName))) return join(dir, assetName);
    const up = dirname(dir);
    if (up === dir) return join(from, '..', '..', '..', assetName);
    dir = up;
  }
}

export function combineInstructions(ours: string, ...clientParts: Array<string | undefined>): string {
  return [ours, ...clientParts]
    .map((p) => (p ?? '').trim())
    .filter((p) => p.length > 0)
    .join('\n\n');
}

export class InstructionsSource {
  private cache: { mtimeMs: number; size: number; text: string } | undefined;

  constructor(readonly path: string) {}

  /** The prompt text; a missing or unreadable file is a 500 that names the setting to fix. */
  async load(): Promise<string> {
    try {
      const st = await stat(this.path);
      if (this.cache && this.cache.mtimeMs === st.mtimeMs && this.cache.size === st.size) return this.cache.text;
      const text = (await readFile(this.path, 'utf8')).trim();
      this.cache = { mtimeMs: st.mtimeMs, size: st.size, text };
      return text;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new ProxyError(
        'internal',
        `Cannot read the response-API instruction prompt ${this.path} (${code}); fix or unset RESPAPI_INSTRUCTIONS_PATH`,
        { cause: err },
      );
    }
  }
}
