// Where a chat goes (DESIGN.md "The flow of one chat"): the CLI in tool mode, the provider API in direct mode.
// A backend yields native stream events and throws a ProxyError (errors.ts) when the chat fails; a non-streaming
// answer is the same stream, collected (translate/native-events-to-message.ts).

import type { NativeRequest, NativeStreamEvent } from './native.js';

export interface Backend {
  stream(req: NativeRequest, signal: AbortSignal): AsyncIterable<NativeStreamEvent>;
}
