// `npm run docs:settings`: writes docs/configuration.md's settings table from the declaration
// (src/proxy/settings/table.ts). test/docs-settings.test.ts fails when the committed table is not what this writes.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { withSettingsTable } from '../src/proxy/settings/render.js';

const page = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));
const before = readFileSync(page, 'utf8');
const after = withSettingsTable(before);
if (after !== before) writeFileSync(page, after);
process.stdout.write(`docs/configuration.md: settings table ${after === before ? 'already current' : 'written'}\n`);
