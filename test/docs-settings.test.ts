// The docs and the code name the same settings: docs/configuration.md's table is the one the declaration
// (src/proxy/settings/table.ts) writes, so every setting is in it with the same flag, and every setting-like name the README and docs/ mention either is a setting or is
// listed below as something else (another program's variable, a test or bench knob, a constant in the code). Links
// into docs/interface.md name its headings; that nothing cites a file outside the repository is
// test/docs-stand-alone.test.ts.

import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withSettingsTable } from '../src/proxy/settings/render.js';
import { settings } from '../src/proxy/settings/schema.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const read = (path: string) => readFileSync(join(root, path), 'utf8');
/** The pages a user reads. docs/benchmarks.md is the bench's lab page: its knobs are the bench's (BENCH_*). */
const userDocs = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md') && f !== 'benchmarks.md')
    .map((f) => `docs/${f}`),
];

/** Names the docs may mention that are not proxy settings, each with what it is. Add a name here only if it is
 * really not a setting; a setting belongs in config.ts and docs/configuration.md. */
const notSettings: Record<string, string> = {
  ASSISTANT_PROXY_CONFIG: 'the settings file, read before the schema',
  ASSISTANT_PROFILE_FILE: 'provider profile overrides',
  ASSISTANT_PROXY_USER_DATA: "the desktop app's settings directory",
  FLUSH_MS: 'a constant of the usage ledger',
  FLUSH_ROWS: 'a constant of the usage ledger',
  AGENTS_ONLY: 'a knob of npm run test:agents',
  SKIP_REAL_CLI: 'a knob of npm run test:setup',
  REAL_ASSISTANT_CLI: 'a knob of the bench scripts',
  AB_A: 'a knob of the latency A/B probe kept in history (docs/performance.md "The probes")',
  AB_B: 'a knob of the latency A/B probe kept in history (docs/performance.md "The probes")',
  AB_ROUNDS: 'a knob of the latency A/B probe kept in history (docs/performance.md "The probes")',
  SOAK_BLOCKS: 'a knob of the soak heap probe kept in history (docs/performance.md "The probes")',
  SOAK_KEEP: 'a knob of the soak heap probe kept in history (docs/performance.md "The probes")',
  FUZZ_RUNS: 'a knob of the fuzz tests',
  FUZZ_SEED: 'a knob of the fuzz tests',
  FUZZ_STATS: 'a knob of the fuzz tests',
  CLAUDE_CODE_DISABLE_AUTO_MEMORY: "the assistant CLI's own variable",
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "the assistant CLI's own variable",
  CLAUDE_CODE_MAX_OUTPUT_TOKENS: "the assistant CLI's own variable",
  CLAUDE_CODE_MAX_RETRIES: "the assistant CLI's own variable",
  MAX_THINKING_TOKENS: "the assistant CLI's own variable",
  ANTHROPIC_API_KEY: "the assistant CLI's and native SDK's own variable",
  ANTHROPIC_BASE_URL: "the assistant CLI's and native SDK's own variable",
  OPENAI_API_KEY: "an OpenAI-format client's own variable",
  OLLAMA_BASE_URL: "Open WebUI's own variable (docs/clients.md)",
  OPENAI_BASE_URL: "an OpenAI-format client's own variable",
  OPENAI_MODEL: "an OpenAI-format client's own variable",
  ELECTRON_MIRROR: "Electron's download variable",
  ELECTRON_GET_USE_PROXY: "Electron's download variable",
  ELECTRON_OVERRIDE_DIST_PATH: "Electron's variable",
  HTTPS_PROXY: 'the usual proxy-server variable',
  XDG_DATA_HOME: 'the desktop standard',
  XDG_CURRENT_DESKTOP: 'the desktop standard',
  WM_CLASS: 'an X11 window property',
  ELECTRON_RUN_AS_NODE: "Electron's variable (a fuse turns it off, docs/security.md)",
  NODE_OPTIONS: "Node's own variable (a fuse turns it off in the app)",
  IDLE_SECONDS: 'a knob of the idle-cost probe kept in history (docs/benchmarks.md)',
  CLAUDE_AGENT_SDK_VERSION: 'a variable the Agent SDK sets for the CLI (docs/tool-mode.md)',
  CLAUDE_CODE_ENTRYPOINT: 'a variable the Agent SDK sets for the CLI (docs/tool-mode.md)',
  CLAUDE_CODE_SDK_READS_SESSION_STATE: 'a variable the Agent SDK sets for the CLI (docs/tool-mode.md)',
  BUN_ENABLE_CRASH_REPORTING: 'a variable the Agent SDK sets for the CLI (docs/tool-mode.md)',
};

const settingNames = new Set(settings.map((s) => s.env));

/** Rows of the "## Settings" table: variable, flag. */
function configurationTable(): Array<{ env: string; flag: string }> {
  const text = read('docs/configuration.md');
  const section = text.slice(text.indexOf('## Settings'), text.indexOf('\n## ', text.indexOf('## Settings') + 1));
  return section
    .split('\n')
    .filter((l) => /^\| `[A-Z_0-9]+` \|/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      return { env: cells[1].replace(/`/g, ''), flag: cells[2].replace(/`/g, '').split(' ')[0] };
    });
}

describe('settings: docs and config.ts agree', () => {
  // The table is generated (npm run docs:settings) rather than compared cell by cell: its text then has one place
  // to be written, the declaration, and a failure here names the rows that differ.
  it("docs/configuration.md's table is the one the declaration writes (npm run docs:settings)", () => {
    const page = read('docs/configuration.md');
    expect(withSettingsTable(page).split('\n'), 'run npm run docs:settings').toEqual(page.split('\n'));
  });

  it('docs/configuration.md lists every setting of config.ts once, with its flag, and nothing else', () => {
    const rows = configurationTable();
    expect(rows.map((r) => r.env).sort()).toEqual([...settingNames].sort());
    for (const s of settings) expect(rows.find((r) => r.env === s.env)?.flag, s.env).toBe(s.flag ?? '');
  });

  it('every setting-like name in the README and docs/ is a setting, or is listed as something else', () => {
    const unknown: string[] = [];
    for (const path of userDocs) {
      for (const [, name] of read(path).matchAll(/\b([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)\b/g)) {
        if (settingNames.has(name) || name in notSettings || name.startsWith('BENCH_')) continue;
        unknown.push(`${path}: ${name}`);
      }
    }
    expect(
      [...new Set(unknown)],
      'a name the docs mention that config.ts does not have (add the setting, fix the doc, or list it in notSettings)',
    ).toEqual([]);
  });
});

describe('user-facing text cites the project’s own docs', () => {
  it('every link into docs/interface.md names one of its headings', () => {
    const headings = new Set(
      [...read('docs/interface.md').matchAll(/^#{2,3} (.+)$/gm)].map((m) =>
        m[1]
          .toLowerCase()
          .replace(/[^a-z0-9 -]/g, '')
          .replace(/ /g, '-'),
      ),
    );
    const broken: string[] = [];
    for (const path of userDocs) {
      for (const [, anchor] of read(path).matchAll(/interface\.md#([a-z0-9-]+)/g))
        if (!headings.has(anchor)) broken.push(`${path}: #${anchor}`);
    }
    expect(broken).toEqual([]);
  });
});
