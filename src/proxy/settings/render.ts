// The two texts a person reads the settings in, both written from the declaration (table.ts): `--help`, grouped,
// with each default as it is on this machine; and docs/configuration.md's table, with each default as the docs say
// it for every machine (`npm run docs:settings` writes it; test/docs-settings.test.ts checks it is current).

import { settingGroups } from './declaration.js';
import { configSchema, settings, type Setting } from './schema.js';

/** A default as a person would type it back: lists comma-joined, "none" for empty or unset. */
function shownDefault(value: unknown): string {
  if (value === undefined) return 'none';
  if (Array.isArray(value)) return value.length > 0 ? value.join(',') : 'none';
  return String(value);
}

const option = (flag: string, env: string, text: string) => `  ${flag.padEnd(18)} ${env.padEnd(30)} ${text}`;

export function usage(): string {
  const defaults = configSchema().parse({}) as Record<string, unknown>;
  const lines = ['Usage: npm run serve -- [options]', '', 'Options (each also an environment variable):'];
  for (const [group, title] of Object.entries(settingGroups)) {
    lines.push('', `${title}:`);
    for (const s of settings.filter((x) => x.group === group)) {
      const value = s.shownDefault ?? shownDefault(defaults[s.key]);
      lines.push(option(s.flag ?? '', s.env, `${s.help} (default: ${value})`));
    }
  }
  lines.push(
    '',
    'Start-up:',
    option(
      '--config FILE',
      'ASSISTANT_PROXY_CONFIG',
      'JSON settings file (keys as in docs/configuration.md) (default: none)',
    ),
    option('--diagnose', '', 'check each enabled mode end to end, print a report, exit 0 when all is well'),
    option('--full', '', 'with --diagnose: keep the account e-mail and home paths in the report (left out by default)'),
    option('--help', '', 'this list'),
  );
  return lines.join('\n');
}

/** The docs' default cell: the value as code, `(empty)` for an empty list, `—` when unset. */
function docsDefault(s: Setting, value: unknown): string {
  if (s.docsDefault) return s.docsDefault;
  if (s.shownDefault) return `\`${s.shownDefault}\``;
  if (value === undefined) return '`—`';
  if (Array.isArray(value)) return `\`${value.length > 0 ? value.join(',') : '(empty)'}\``;
  return `\`${String(value)}\``;
}

/** docs/configuration.md's settings table, one row per setting in the table's order. */
export function settingsDocsTable(): string {
  const defaults = configSchema().parse({}) as Record<string, unknown>;
  const rows = settings.map(
    (s) =>
      `| \`${s.env}\` | ${s.flag ? `\`${s.flag}\`` : ''} | ${docsDefault(s, defaults[s.key])} | ${s.docs ?? s.help} |`,
  );
  return ['| variable | flag | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}

const tableStart = '<!-- settings table: written by `npm run docs:settings` from src/proxy/settings/table.ts -->';
const tableEnd = '<!-- end of settings table -->';

/** The page with its settings table, between the two markers, made anew from the declaration. */
export function withSettingsTable(page: string): string {
  const start = page.indexOf(tableStart);
  const end = page.indexOf(tableEnd);
  if (start < 0 || end < start) throw new Error(`the page has no settings table between ${tableStart} and ${tableEnd}`);
  return `${page.slice(0, start + tableStart.length)}\n${settingsDocsTable()}\n${page.slice(end)}`;
}
