// The modes the proxy serves (docs/interface.md "Modes"), written once: the settings schema (proxy/config.ts), the
// route table (proxy/route-table.ts), the usage filters, the tray and the window's settings form all read this list.
// Pure and without imports (eslint.config.js keeps it so), so it runs in Node and in the window's page alike.

export const modeNames = ['tool', 'direct', 'respapi'] as const;
export type ModeName = (typeof modeNames)[number];

/** How the tray and the window name a mode. */
export const modeLabels: Readonly<Record<ModeName, string>> = {
  tool: 'Tool (CLI)',
  direct: 'Direct API',
  respapi: 'Response API',
};

/** How a table cell (recent requests, request history) names a mode. */
export const modeShortLabels: Readonly<Record<ModeName, string>> = {
  tool: 'tool',
  direct: 'direct',
  respapi: 'response API',
};

/** How an error message names a mode's on/off setting. */
export const modeSettingNames: Readonly<Record<ModeName, string>> = {
  tool: 'tool mode',
  direct: 'direct mode',
  respapi: 'response-API mode',
};
