// The native chat-completion format's error shape: the native family's (docs/interface.md "Native errors") before
// headers, and after headers the same body as one data-only event, then [DONE] ("Native chat-completion stream"), which
// OpenAI-format clients read as an API error (docs/http.md "POST /v1/chat/completions: one stream, two readers").

import type { StreamErrorShape } from '../../http/stream-error.js';
import { dataOnlyErrorEvents } from '../data-only-writer.js';
import { nativeErrorShape } from '../native-error-shape.js';

export const nativeChatErrorShape: StreamErrorShape = {
  ...nativeErrorShape,
  streamEvents: (err, requestId) => dataOnlyErrorEvents(nativeErrorShape.body(err, requestId)),
};
