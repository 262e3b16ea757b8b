// Session ids of response-API mode (docs/interface.md "Response-API request": /respapi/{session_id}/responses). A
// client-chosen id travels upstream in a header, so it must be a safe token: no whitespace, control characters or
// separators that could split or forge a header, and short enough to show in the desktop window.

import { randomUUID } from 'node:crypto';

const safeToken = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export const sessionIdRule =
  '1 to 128 characters of letters, digits, ".", "_", ":" or "-", starting with a letter or digit';

export function isValidSessionId(id: string): boolean {
  return safeToken.test(id);
}

/** A fresh id for POST /respapi/responses (one per request). */
export function generateSessionId(): string {
  return randomUUID();
}
