// --help and the docs' table, both written from the declaration.

import { describe, expect, it } from 'vitest';
import { settingGroups } from './declaration.js';
import { settingsDocsTable, usage, withSettingsTable } from './render.js';
import { settings } from './schema.js';

describe('--help', () => {
  it('lists every setting once, under its group, with its flag, variable, help and default', () => {
    const lines = usage().split('\n');
    for (const s of settings) {
      // The variable's column: two spaces, the flag padded to 18, a space, the variable padded to 30.
      const found = lines.filter((l) => l.slice(21, 51).trim() === s.env);
      expect(found, s.env).toHaveLength(1);
      expect(found[0], s.env).toContain(`${s.help} (default: `);
      if (s.flag) expect(found[0].trimStart().startsWith(`${s.flag} `), s.env).toBe(true);
      const heading = lines.slice(0, lines.indexOf(found[0])).findLast((l) => l.endsWith(':') && !l.startsWith(' '));
      expect(heading, s.env).toBe(`${settingGroups[s.group]}:`);
    }
    expect(usage()).toMatch(/^ {2}--port {13}PORT {27}listening port \(0 = any free port\) \(default: 8000\)$/m);
    expect(usage()).toMatch(/^ {2}--cors-origins .* \(default: none\)$/m);
    expect(usage()).toMatch(/^ {2}--config FILE {6}ASSISTANT_PROXY_CONFIG {9}JSON settings file/m);
  });
});

describe("the docs' table", () => {
  it('has one row per setting, defaults written for every machine', () => {
    const rows = settingsDocsTable().split('\n');
    expect(rows.slice(0, 2)).toEqual(['| variable | flag | default | meaning |', '|---|---|---|---|']);
    expect(rows).toHaveLength(settings.length + 2);
    expect(rows).toContain('| `PORT` | `--port` | `8000` | listening port (0 = any free port) |');
    expect(rows).toContain('| `RATE_LIMIT_BURST` |  | `10` | extra requests allowed above the per-minute rate |');
    expect(rows.find((r) => r.startsWith('| `CORS_ORIGINS` '))).toContain('| `(empty)` |');
    expect(rows.find((r) => r.startsWith('| `PROXY_ACCESS_KEY` '))).toContain('| `—` |');
    expect(rows.find((r) => r.startsWith('| `CLI_WORKDIR` '))).toContain('| `DATA_DIR/cli-workdir` |');
    expect(rows.find((r) => r.startsWith('| `ASSISTANT_API_BASE_URL` '))).toContain('`from the provider profile`');
  });

  it('replaces only what lies between the markers, and refuses a page without them', () => {
    const start = '<!-- settings table: written by `npm run docs:settings` from src/proxy/settings/table.ts -->';
    const page = `# Title\n\n${start}\n| stale |\n<!-- end of settings table -->\n\nAfter.\n`;
    expect(withSettingsTable(page)).toBe(
      `# Title\n\n${start}\n${settingsDocsTable()}\n<!-- end of settings table -->\n\nAfter.\n`,
    );
    expect(withSettingsTable(withSettingsTable(page))).toBe(withSettingsTable(page));
    expect(() => withSettingsTable('# Title\n| stale |\n')).toThrow(/no settings table between/);
  });
});
