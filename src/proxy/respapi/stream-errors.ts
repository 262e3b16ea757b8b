// The response-API relay's error shape: the compatible family's (docs/interface.md "Compatible errors") before headers
// and for the type name, and after headers the response API's own `event: error` ({type, code, message, param}) with
// those codes, written by the one writer of errors after headers (http/stream-error.ts failAfterHeaders). The
// upstream's errors carry no billing refusal.

import type { StreamErrorShape } from '../http/stream-error.js';
import { compatErrorShape } from '../formats/compat/error-shape.js';

export const respapiErrors: StreamErrorShape = {
  ...compatErrorShape,
  streamEvents: (err) => [
    {
      event: 'error',
      data: { type: 'error', code: compatErrorShape.typeName(err), message: err.message, param: err.field ?? null },
    },
  ],
};
