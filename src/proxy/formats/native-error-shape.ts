// The native family's error shape (docs/interface.md "Native errors"), the provider's own envelope with our details:
// the body before headers on every native route (/v1, /api/v1, /cc/v1, /messages), and one `event: error` after headers
// in the native event stream, which the official native SDK's stream helper raises. The messages format and the
// byte-level forwarder (modes/direct/forward.ts) write it; the native chat-completion format writes the same body
// data-only (formats/native-chat/error-shape.ts).

import { errorDetails, nativeType } from '../http/error-shape.js';
import type { StreamErrorShape } from '../http/stream-error.js';
import type { ProxyError } from '../errors.js';

export interface NativeErrorBody {
  type: 'error';
  error: { type: string; message: string; details?: { field: string; issue: string } };
  request_id?: string;
}

function body(err: ProxyError, requestId?: string): NativeErrorBody {
  return {
    type: 'error',
    error: { type: nativeType[err.kind], message: err.message, details: errorDetails(err) },
    request_id: requestId,
  };
}

export const nativeErrorShape: StreamErrorShape = {
  family: 'native',
  body,
  streamEvents: (err, requestId) => [{ event: 'error', data: body(err, requestId) }],
  typeName: (err) => nativeType[err.kind],
};
