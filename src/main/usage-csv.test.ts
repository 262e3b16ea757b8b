import { describe, expect, it } from 'vitest';
import { usageCsv } from './usage-csv.js';
import type { UsageRecord } from '../proxy/control-api.js';

const row: UsageRecord = {
  requestId: 'req_1',
  startedAt: Date.parse('2026-11-22T10:00:00Z'),
  mode: 'tool',
  route: '/v1/messages',
  method: 'POST',
  streamed: true,
  modelRequested: 'assistant-sonnet-4-20250514',
  modelServed: 'assistant-sonnet-4-20250514',
  client: 'curl',
  status: 200,
  outcome: 'ok',
  errorType: null,
  tokens: { input: 12, output: 40, cacheRead: null, cacheWrite: 0 },
  ttftMs: 350,
  durationMs: 1200.4,
};

describe('usage CSV', () => {
  it('one header line and one line per request; unreported values are empty cells', () => {
    expect(usageCsv([row])).toBe(
      'started_at,request_id,mode,method,route,streamed,model_requested,model_served,client,status,outcome,error_type,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,ttft_ms,duration_ms,billing_lane,refusal,tokens_partial,lane_carried,purpose\r\n' +
        '2026-11-22T10:00:00.000Z,req_1,tool,POST,/v1/messages,true,assistant-sonnet-4-20250514,assistant-sonnet-4-20250514,curl,200,ok,,12,40,,0,350,1200,,,false,false,\r\n',
    );
  });

  it('quotes commas and quotes, and defuses cells a spreadsheet would run as formulas', () => {
    const line = usageCsv([{ ...row, route: '/x,"y"', client: '=HYPERLINK("http://evil")', mode: null }]).split(
      '\r\n',
    )[1];
    expect(line).toContain(',"/x,""y""",');
    expect(line).toContain(`,"'=HYPERLINK(""http://evil"")",`);
    expect(line.split(',')[2]).toBe('');
  });
});
