// A failure after headers in the response API's own `event: error` shape ({type, code, message, param}), written by
// the one writer of errors after headers (http/stream-error.ts failAfterHeaders); its clients read SPEC.md §7.1's
// codes. The upstream's errors carry no billing refusal.

import { errorTypeName } from '../../http/render-error.js';
import type { FormatErrorWriter } from '../../http/stream-error.js';

export const respapiErrors: FormatErrorWriter = {
  fail: (err) => [
    {
      event: 'error',
      data: { type: 'error', code: errorTypeName(err, 'compat'), message: err.message, param: err.field ?? null },
    },
  ],
  errorType: (err) => errorTypeName(err, 'compat'),
};
