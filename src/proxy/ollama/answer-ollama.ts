// Answers an Ollama chat or generate request (docs/ollama.md), with the same pieces as routes/answer-chat.ts:
// Backend.stream (or Backend.message for a whole answer), the served model named, the one observer
// (upstream/chat-observer.ts: first token, usage, served model), then the format's own output: one JSON object, or
// NDJSON lines (application/x-ndjson), Ollama's stream framing, which is not SSE. A failure before the first event
// is an ordinary HTTP error in Ollama's shape; after it, one `{"error": "..."}` line ends the stream (what the
// ollama client libraries read as an error).

import { Readable } from 'node:stream';
import type { Backend, BackendContext } from '../backends/backend.js';
import { ProxyError, isProxyError } from '../errors.js';
import type { NativeMessage, NativeRequest, NativeStreamEvent } from '../formats/native.js';
import { ignoredParamsHeader, ignoredParamsValue } from '../http/ignored-params.js';
import { errorTypeName } from '../http/render-error.js';
import { sendJson } from '../http/send-now.js';
import { setHeader } from '../http/set-header.js';
import type { ProxyContext } from '../http/types.js';
import { redactSecrets, type Logger } from '../logger.js';
import type { Services } from '../services.js';
import { mapNativeError } from '../translate/map-native-error.js';
import { collectNativeMessage, collectPushedNativeMessage } from '../translate/native-events-to-message.js';
import { ChatObserver } from '../upstream/chat-observer.js';
import { createOllamaStreamState, finishOllamaStream, nativeMessageToOllama, stepOllamaStream, type OllamaAnswerKind } from '../wire/ollama/native-to-ollama.js';

export interface OllamaChat {
  kind: OllamaAnswerKind;
  request: NativeRequest;
  stream: boolean;
  /** The model as the client named it: the log's "requested" and the name on every answer line. */
  requestedModel: string;
  servedName: (served: string) => string;
  ignored: string[];
  warnings: string[];
  upstream?: Pick<BackendContext, 'auth' | 'headers'>;
}

/** One NDJSON line; the `error` line is what Ollama writes when an answer fails after it started. */
function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`;
}

export async function answerOllama(ctx: ProxyContext, services: Services, backend: Backend, chat: OllamaChat): Promise<void> {
  const state = ctx.state;
  let child: Logger | undefined;
  const logger = () => (child ??= services.logger.child({ requestId: state.requestId }));
  state.model = chat.requestedModel;
  state.stream = chat.stream;
  if (chat.ignored.length > 0) {
    setHeader(ctx, ignoredParamsHeader, ignoredParamsValue(chat.ignored));
    logger().debug({ ignored: chat.ignored }, 'request parameters this mode cannot honour were ignored');
  }
  if (chat.warnings.length > 0) logger().warn({ warnings: chat.warnings }, 'lossy request translation');
  const context: BackendContext = {
    get logger() {
      return logger();
    },
    toolResultsReturn: true,
    auth: chat.upstream?.auth,
    headers: chat.upstream?.headers,
  };
  const observer = new ChatObserver(state, { now: services.deps.now });
  const meta = { kind: chat.kind, model: chat.requestedModel, startedAt: state.startedAt };
  const see = (event: NativeStreamEvent) => {
    if (event.type === 'message_start') event.message.model = chat.servedName(event.message.model);
    observer.native(event);
  };

  if (!chat.stream) {
    const whole = backend.message?.(chat.request, state.signal, context);
    let message: NativeMessage;
    if (whole) {
      message = await whole;
      message.model = chat.servedName(message.model);
      observer.message(message as unknown as Record<string, unknown>);
    } else {
      message = backend.forEachEvent
        ? await collectPushedNativeMessage((onEvent) => backend.forEachEvent!(chat.request, state.signal, onEvent, context), see)
        : await collectNativeMessage(backend.stream(chat.request, state.signal, context), see);
    }
    sendJson(ctx, nativeMessageToOllama(message, meta, services.deps.now()));
    return;
  }

  // The first event is awaited before any header goes out, so a refused request keeps its real status.
  const iterator = backend.stream(chat.request, state.signal, context)[Symbol.asyncIterator]();
  let first: IteratorResult<NativeStreamEvent>;
  try {
    first = await iterator.next();
    if (!first.done) {
      if (first.value.type === 'error') throw mapNativeError(first.value.error);
      see(first.value);
    }
  } catch (err) {
    await iterator.return?.(undefined);
    throw err;
  }
  const stream = createOllamaStreamState(meta, services.deps.now);

  async function* lines(): AsyncGenerator<string> {
    try {
      for (let next = first; !next.done; next = await iterator.next()) {
        if (next !== first) see(next.value);
        for (const out of stepOllamaStream(next.value, stream)) yield line(out);
        if (stream.error) break;
      }
      const end = finishOllamaStream(stream);
      for (const out of end.lines) yield line(out);
      if (end.error) throw end.error;
    } catch (caught) {
      if (state.signal.aborted) return; // the client is gone: nobody to tell; the request log records the 499
      yield line(failAfterHeaders(caught, ctx, logger()));
    } finally {
      // Ends the CLI child, or the upstream request, when the client went away or the stream stopped early.
      await iterator.return?.(undefined);
    }
  }
  ctx.status = 200;
  setHeader(ctx, 'content-type', 'application/x-ndjson');
  setHeader(ctx, 'cache-control', 'no-cache');
  setHeader(ctx, 'x-accel-buffering', 'no');
  ctx.req.socket.setNoDelay(true);
  ctx.body = Readable.from(lines(), { objectMode: false });
}

/** A failure after headers: its type noted for the log, metrics and ledger; the Ollama error line to write. */
function failAfterHeaders(caught: unknown, ctx: ProxyContext, logger: Logger): { error: string } {
  let err: ProxyError;
  if (isProxyError(caught)) {
    err = new ProxyError(caught.kind, redactSecrets(caught.message));
    logger.warn({ requestId: ctx.state.requestId, kind: err.kind, reason: err.message }, 'answer failed after it started');
  } else {
    logger.error({ requestId: ctx.state.requestId, err: caught }, 'unexpected error inside a started answer');
    err = new ProxyError('internal', 'Internal server error: the proxy hit an unexpected condition; see its log for details');
  }
  ctx.state.errorType = errorTypeName(err, 'ollama');
  return { error: err.message };
}
