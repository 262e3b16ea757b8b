// The request history as CSV for the window's export (docs/desktop.md "Usage"). Pure. One row per request, times
// in ISO UTC, empty cells for what was not reported; a cell that a spreadsheet would run as a formula (=, +, -, @)
// is prefixed with a quote, since routes and model names come from clients.

import type { UsageRecord } from '../proxy/control-api.js';

export const csvColumns = [
  'started_at',
  'request_id',
  'mode',
  'method',
  'route',
  'streamed',
  'model_requested',
  'model_served',
  'client',
  'status',
  'outcome',
  'error_type',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'ttft_ms',
  'duration_ms',
] as const;

function cell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function usageCsv(rows: UsageRecord[]): string {
  const lines = [csvColumns.join(',')];
  for (const r of rows) {
    lines.push(
      [
        new Date(r.startedAt).toISOString(),
        r.requestId,
        r.mode,
        r.method,
        r.route,
        r.streamed,
        r.modelRequested,
        r.modelServed,
        r.client,
        r.status,
        r.outcome,
        r.errorType,
        r.tokens.input,
        r.tokens.output,
        r.tokens.cacheRead,
        r.tokens.cacheWrite,
        r.ttftMs,
        Math.round(r.durationMs),
      ]
        .map(cell)
        .join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}
