// The CLI's rate_limit_event line, as the real CLI printed it, through the line parser the CLI backend uses and
// into quota windows: the path a tool-mode request's quota takes to the ledger.

import { describe, expect, it } from 'vitest';
import { parseCliLine } from '../modes/tool/translate/cli-events.js';
import { parseCliRateLimit } from './quota-parse.js';

const recorded =
  '{"type":"rate_limit_event","rate_limit_info":{"status":"allowed","resetsAt":1795400158,"rateLimitType":"five_hour","isUsingOverage":false,"unifiedWindows":{"five_hour":{"utilization":0.18,"resetsAt":1795400158,"status":"allowed"},"seven_day":{"utilization":0.23,"resetsAt":1795734958,"status":"allowed"}}},"uuid":"4e70c870-826d-4c96-a03a-d21c2a6cb7b7","session_id":"ba38052d-9f90-4b4e-9ef3-4d39e32fc870"}';

describe('rate_limit_event line', () => {
  it('parses as a rate_limit line whose info yields both windows', () => {
    const parsed = parseCliLine(recorded);
    expect(parsed.kind).toBe('rate_limit');
    if (parsed.kind !== 'rate_limit') return;
    expect(parseCliRateLimit(parsed.info, 5).map((w) => [w.window, w.utilization, w.resetsAt])).toEqual([
      ['five_hour', 0.18, 1795400158],
      ['seven_day', 0.23, 1795734958],
    ]);
  });

  it('is malformed, not a crash, when rate_limit_info is missing or not an object', () => {
    expect(parseCliLine('{"type":"rate_limit_event"}').kind).toBe('malformed');
    expect(parseCliLine('{"type":"rate_limit_event","rate_limit_info":3}').kind).toBe('malformed');
  });
});
