// The native messages format's answer (POST /v1/messages and its aliases in tool mode): the native message JSON,
// or the native event stream WITH `event:` lines (message_start ... message_stop), so the official native SDK's
// stream helper consumes it; a failure after headers is one `event: error` with the docs/interface.md "Native errors"
// body (the native error shape, formats/native-error-shape.ts).

import { ProxyError } from '../../errors.js';
import type { AnswerWriter } from '../format.js';
import { nativeErrorShape } from '../native-error-shape.js';

export function messagesAnswer(): AnswerWriter {
  return {
    whole: (message) => message,
    stream() {
      let stopped = false;
      return {
        step: (event) => {
          if (event.type === 'message_stop') stopped = true;
          return [{ event: event.type, data: event }];
        },
        failed: () => false,
        finish: () => ({
          events: [],
          error: stopped ? undefined : new ProxyError('upstream', 'The stream ended without message_stop'),
        }),
        errors: nativeErrorShape,
      };
    },
  };
}
