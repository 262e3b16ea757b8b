// The request history as CSV lines (docs/usage.md "Endpoints": GET /usage/export.csv). RFC 4180: fields with a comma,
// quote, CR or LF are quoted and quotes doubled; lines end in CRLF. A text cell that a spreadsheet would run as a
// formula (starting with =, +, -, @, tab or CR) gets a leading apostrophe, since routes, model names and client
// names come from clients. Pure.

import type { UsageRecord } from './types.js';

const csvColumns = [
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
  'billing_lane',
  'refusal',
  'tokens_partial',
  'lane_carried',
  'purpose',
] as const;

function csvCell(value: string | number | boolean | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvHeader(): string {
  return `${csvColumns.join(',')}\r\n`;
}

export function csvLine(r: UsageRecord): string {
  const cells = [
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
    r.ttftMs === null ? null : Math.round(r.ttftMs),
    Math.round(r.durationMs),
    r.billingLane ?? null,
    r.refusal ?? null,
    r.tokensPartial === true,
    r.laneCarried === true,
    r.purpose ?? null,
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}
