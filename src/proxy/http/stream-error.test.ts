// The one writer of errors after headers: the same failure in each stream's error shape, with secrets redacted, the
// error type noted on the request, and our own bugs reported without their details.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { ProxyError } from '../errors.js';
import { createLogger } from '../logger.js';
import type { ProxyState } from './state.js';
import { compatErrorShape } from '../formats/compat/error-shape.js';
import { nativeChatErrorShape } from '../formats/native-chat/error-shape.js';
import { nativeErrorShape } from '../formats/native-error-shape.js';
import { respapiErrors } from '../respapi/stream-errors.js';
import { failAfterHeaders } from './stream-error.js';

const err = new ProxyError('unavailable', 'The provider is overloaded');

describe('stream error shapes', () => {
  it('writes a native `event: error`, a data-only error then [DONE], or the response API shape', () => {
    const nativeBody = {
      type: 'error',
      error: { type: 'service_unavailable_error', message: 'The provider is overloaded' },
      request_id: 'req_1',
    };
    expect(nativeErrorShape.streamEvents(err, 'req_1')).toEqual([{ event: 'error', data: nativeBody }]);
    expect(nativeChatErrorShape.streamEvents(err, 'req_1')).toEqual([{ data: nativeBody }, { data: '[DONE]' }]);
    expect(compatErrorShape.streamEvents(err, 'req_1')).toEqual([
      {
        data: {
          error: {
            message: 'The provider is overloaded',
            type: 'server_error',
            param: null,
            code: 'service_unavailable',
          },
        },
      },
      { data: '[DONE]' },
    ]);
    expect(respapiErrors.streamEvents(err, 'req_1')).toEqual([
      {
        event: 'error',
        data: { type: 'error', code: 'service_unavailable', message: 'The provider is overloaded', param: null },
      },
    ]);
  });
});

describe('failAfterHeaders', () => {
  function bed() {
    const lines: Array<Record<string, unknown>> = [];
    const logger = createLogger(
      'debug',
      new Writable({ write: (c, _e, cb) => (lines.push(JSON.parse(String(c))), cb()) }),
    );
    const state = { requestId: 'req_2', family: 'native' } as ProxyState;
    return { lines, logger, state };
  }

  it('redacts a secret in the message and notes the error type on the request', () => {
    const { logger, state } = bed();
    const events = failAfterHeaders(
      new ProxyError('upstream', 'refused key sk-ant-api03-abcdefghijklmnopqrstuv'),
      state,
      nativeErrorShape,
      logger,
    );
    expect(JSON.stringify(events)).not.toContain('abcdefghijklmnop');
    expect(state.errorType).toBe('api_error');
  });

  it('reports a bug as an internal error without its details, and logs it with the stack', () => {
    const { lines, logger, state } = bed();
    const events = failAfterHeaders(new TypeError('cannot read x of undefined'), state, compatErrorShape, logger);
    expect(JSON.stringify(events)).not.toContain('cannot read');
    expect(events.at(-1)).toEqual({ data: '[DONE]' });
    expect(state.errorType).toBe('internal_server_error');
    expect(lines.find((l) => l.level === 50)).toMatchObject({
      err: expect.objectContaining({ message: 'cannot read x of undefined' }),
    });
  });
});
