// The modes the proxy serves (SPEC.md §1), written once: the settings schema (config.ts), the route table
// (route-table.ts), the usage filters, the tray and the window's settings form all read this list. Pure and
// without imports, so the window's page may import it too (eslint.config.js allows this one module there).

export const modeNames = ['tool', 'direct', 'respapi'] as const;
export type ModeName = (typeof modeNames)[number];

/** How the tray and the window name a mode. */
export const modeLabels: Readonly<Record<ModeName, string>> = { tool: 'Tool (CLI)', direct: 'Direct API', respapi: 'Response API' };

/** How an error message names a mode's on/off setting. */
export const modeSettingNames: Readonly<Record<ModeName, string>> = { tool: 'tool mode', direct: 'direct mode', respapi: 'response-API mode' };
