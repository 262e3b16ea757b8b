import { describe as suite, expect, it } from 'vitest';
import { describe } from './log-view.js';

suite('log line display', () => {
  it('a request line reads "GET /v1/models 200 7 ms" with the fields worth reading after it', () => {
    const line = JSON.stringify({
      level: 30,
      time: 't',
      service: 'assistant-proxy',
      msg: 'request',
      requestId: 'req_1',
      method: 'GET',
      path: '/v1/models',
      route: '/v1/models',
      mode: 'none',
      status: 200,
      durationMs: 7.4,
      stream: false,
      clientGone: false,
    });
    expect(describe('request', line)).toEqual({ msg: 'GET /v1/models 200 7 ms', fields: 'requestId=req_1' });
    const chat = JSON.stringify({
      msg: 'request',
      requestId: 'req_2',
      method: 'POST',
      path: '/respapi/s1/responses',
      route: '/respapi/:session_id/responses',
      mode: 'respapi',
      model: 'rm-4',
      status: 502,
      durationMs: 30,
      ttftMs: 12,
      stream: true,
      errorType: 'api_error',
    });
    expect(describe('request', chat)).toEqual({
      msg: 'POST /respapi/s1/responses 502 30 ms',
      fields:
        'requestId=req_2 route=/respapi/:session_id/responses mode=respapi model=rm-4 ttftMs=12 stream=true errorType=api_error',
    });
  });

  it('other lines show their fields as k=v, objects as JSON; a line that is not JSON as it is', () => {
    expect(
      describe(
        'refresh failed',
        JSON.stringify({ level: 50, msg: 'refresh failed', err: 'HTTP 400', detail: { code: 1 } }),
      ),
    ).toEqual({ msg: 'refresh failed', fields: 'err=HTTP 400 detail={"code":1}' });
    expect(describe('', 'plain text')).toEqual({ msg: '', fields: 'plain text' });
  });
});
