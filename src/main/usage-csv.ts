// The request history as CSV for the window's export (docs/desktop.md "The window"): the same lines as the proxy's
// GET /usage/export.csv (src/proxy/usage/csv.ts: RFC 4180, formula cells defused), built from the rows in hand.

import type { UsageRecord } from '../proxy/control-api.js';
import { csvHeader, csvLine } from '../proxy/usage/csv.js';

export function usageCsv(rows: UsageRecord[]): string {
  return csvHeader() + rows.map(csvLine).join('');
}
