// The diagnose report as plain text, for the terminal (`--diagnose`) and for pasting into a bug report.

import type { DiagnoseReport } from './types.js';

const mark = { pass: 'PASS', fail: 'FAIL', skip: 'SKIP', unset: 'NOT SET UP' } as const;

/** " (response-API mode not set up)" when an optional mode has no login, else "". */
function notSetUp(report: DiagnoseReport): string {
  const modes = [...new Set(report.checks.filter((c) => c.status === 'unset').map((c) => c.mode))];
  return modes.length === 0 ? '' : ` (not set up: ${modes.join(', ')})`;
}

export function renderDiagnoseText(report: DiagnoseReport): string {
  const lines = [
    `Assistant Proxy ${report.version} diagnose, ${report.startedAt}`,
    `${report.platform}, Node ${report.node}; modes: ${report.modes.join(', ') || 'none'}; requests through ${report.target}`,
    '',
  ];
  for (const c of report.checks) {
    lines.push(`[${mark[c.status]}] ${c.title} (${c.mode}): ${c.detail}`);
    if (c.remedy && c.status !== 'pass')
      lines.push(`       ${c.status === 'fail' ? 'Remedy' : c.status === 'unset' ? 'To use it' : 'Why'}: ${c.remedy}`);
  }
  const failed = report.checks.filter((c) => c.status === 'fail').length;
  lines.push(
    '',
    `${failed === 0 ? 'All checks passed.' : `${failed} check${failed === 1 ? '' : 's'} failed.`}${notSetUp(report)}`,
  );
  return lines.join('\n');
}
