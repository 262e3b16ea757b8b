// Where a chat goes (docs/architecture.md "The flow of one chat"): the CLI in tool mode
// (modes/tool/engine/cli-backend.ts), the provider API in direct mode (modes/direct/direct-backend.ts). A backend
// yields native stream events and throws a ProxyError (errors.ts) when the chat fails; a non-streaming answer is the
// same stream, collected (formats/native-events-to-message.ts), unless the backend can ask its upstream for the whole
// message at once (message(), direct mode: docs/direct-mode.md). chat/answer-chat.ts is written against this
// interface only; the modes implement it, so it is the chat's (chat/), not theirs.

import type { NativeMessage, NativeRequest, NativeStreamEvent } from '../formats/native.js';
import type { Logger } from '../logger.js';
import type { ClientAuth } from '../upstream/client-auth.js';
import type { BillingFacts } from '../usage/types.js';

/** What one request adds to a backend built once per proxy (components.ts). */
export interface BackendContext {
  /** A logger bound to the request (requestId). */
  logger?: Logger;
  /**
   * False when the client cannot send tool results the backend could match to the provider's calls (the legacy
   * `functions` form, which has no ids): a CLI that called the client's tools then ends instead of waiting.
   */
  toolResultsReturn?: boolean;
  /** The provider API: the credential this client's request calls for, and extra headers (its feature flags). */
  auth?: ClientAuth;
  headers?: Record<string, string>;
  /** The request's observer, told what the upstream reports about who pays (docs/usage.md "Lanes"). */
  billing?: BillingFacts;
  /**
   * The client reads the answer whole (it did not ask for a stream): nothing reaches it before the stream ends, so a
   * backend may still start its answer over (a CLI that died mid-turn, docs/tool-mode.md).
   */
  whole?: boolean;
  /** A response that chains by id (docs/responses-store.md): its own id, and the one it continues. Tool mode
   * continues the process that answered `previous` without comparing the history, and ties this answer's
   * process to `id`. */
  link?: { id: string; previous?: string };
  /** No later request continues this conversation (a compaction's summary, docs/compaction.md): a backend that keeps
   * conversations alive ends this one with its answer. */
  once?: boolean;
}

export interface Backend {
  /** The chat's events; `signal` fires when the client goes away, and must end the child or upstream request. */
  stream(req: NativeRequest, signal: AbortSignal, context?: BackendContext): AsyncIterable<NativeStreamEvent>;
  /**
   * Optional, for a client that does not stream: the whole native message, asked of the upstream in one piece
   * (no event to parse or collect); rejects with a ProxyError when the chat fails. Returns undefined, at once and
   * without sending anything, when this request should be streamed and collected instead (e.g. an answer that
   * may be too long to wait for in one piece).
   */
  message?(req: NativeRequest, signal: AbortSignal, context?: BackendContext): Promise<NativeMessage> | undefined;
  /**
   * Optional: the conversation whose last answer was the response `previous` was replaced by a summary
   * (docs/compaction.md): a backend that keeps conversations alive between requests (tool mode's CLI processes)
   * ends the one that answered it. True when one was ended.
   */
  release?(previous: string): boolean;
}
