// The one place a chat is answered, in every mode that produces native events (docs/architecture.md "The flow of
// one chat"): tool mode's seven chat routes (CliBackend) and direct mode's compatible route (DirectBackend).
//   route: validate -> translate to one NativeRequest -> Chat
//   here:  Backend.stream(request, signal) -> the served model named -> the one observer (chat/chat-observer.ts:
//          first token, usage, served model) -> the output's shape
//   A client that does not stream gets the stream collected into one message, or the backend's whole message
//   when it asked its upstream for one (Backend.message, direct mode: docs/direct-mode.md); the model is named
//   and the observer told the same way, and the output code is the same.
// The answer's shape is the wire format's (formats/format.ts AnswerWriter): the whole answer's JSON, or a stream
// translator with the format's own error events; this file has no list of formats.
// A failure before the first event is an ordinary HTTP error (the status is still free: a 429 keeps Retry-After, a
// 401 its remedy). After that it is written by the one error writer (http/stream-error.ts) and the stream ends.
// What a finished chat leaves on ctx.state (requested and served model, usage, first token, error type) is turned
// into exactly one log line, metrics record and ledger row by http/request-log.ts (the row: http/ledger-row.ts): the
// hook later features use.

import type { Backend, BackendContext } from './backend.js';
import type { Chat } from './chat.js';
import type { NativeMessage, NativeStreamEvent } from '../formats/native.js';
import { ignoredParamsHeader, ignoredParamsValue } from '../http/ignored-params.js';
import type { SseEvent } from '../http/sse.js';
import { sendSse } from '../http/sse.js';
import { sendNdjson } from '../http/ndjson.js';
import { failAfterHeaders } from '../http/stream-error.js';
import type { ProxyContext } from '../http/types.js';
import type { Logger } from '../logger.js';
import type { Services } from '../services.js';
import { ChatObserver } from './chat-observer.js';
import { mapNativeError } from '../formats/map-native-error.js';
import { collectNativeMessage } from '../formats/native-events-to-message.js';

/**
 * A JSON answer as Koa would serialise and type it (no indentation, `application/json; charset=utf-8`), held as
 * bytes so the request log's body inspector sees the same bytes the client does.
 */
function sendJson(ctx: ProxyContext, value: unknown): void {
  ctx.set('content-type', 'application/json; charset=utf-8');
  ctx.body = Buffer.from(JSON.stringify(value), 'utf8');
}

/**
 * Every answer names the model that really served it, in the neutral naming (docs/clients.md "Model ids"): the
 * one change this path makes to a backend's event (or whole message) before the client's translator and the
 * observer see it.
 */
function nameServedModel(chat: Chat, event: NativeStreamEvent): void {
  if (event.type === 'message_start') nameServedModelOf(chat, event.message);
}

/** The same naming for a whole message (Backend.message) or a stream's message_start. */
function nameServedModelOf(chat: Chat, message: NativeMessage): void {
  if (chat.servedName) message.model = chat.servedName(message.model);
}

/**
 * Names the served model, then hands the event to the observer. A plain call in the consuming loop, not a
 * generator layer: each async-generator hop costs a few promises per event, and a chat's events pass through this
 * path by the thousand (docs/performance.md "Where the added latency sits": fewer steps, fewer promises).
 */
function seeEvent(chat: Chat, observer: ChatObserver, event: NativeStreamEvent): void {
  nameServedModel(chat, event);
  observer.native(event);
}

export async function answerChat(ctx: ProxyContext, services: Services, backend: Backend, chat: Chat): Promise<void> {
  const state = ctx.state;
  // Made when something is logged: a pino child (bindings, redaction) cost more per request than the translation.
  let child: Logger | undefined;
  const logger = () => (child ??= services.logger.child({ requestId: state.requestId }));
  state.model = chat.requestedModel;
  state.stream = chat.stream;
  const headers: Record<string, string> = {};
  if (chat.ignored.length > 0) {
    headers[ignoredParamsHeader] = ignoredParamsValue(chat.ignored);
    // The header tells the client once per response; a warning per request would flood the log (docs/tool-mode.md).
    logger().debug({ ignored: chat.ignored }, 'request parameters this mode cannot honour were ignored');
  }
  if (chat.warnings.length > 0) logger().warn({ warnings: chat.warnings }, 'lossy request translation');
  for (const name in headers) ctx.set(name, headers[name]);

  const observer = new ChatObserver(state, { now: services.deps.now, quota: services.profile.quota });
  const context: BackendContext = {
    get logger() {
      return logger();
    },
    toolResultsReturn: chat.toolResultsReturn !== false,
    auth: chat.upstream?.auth,
    headers: chat.upstream?.headers,
    billing: observer,
    whole: !chat.stream,
    ...(chat.link ? { link: chat.link } : {}),
    ...(chat.once ? { once: true } : {}),
  };
  const created = Math.floor(services.deps.now() / 1000);
  // The format's writer is made once the served model is known (the whole message, or the stream's first event:
  // the backend's message_start comes before any content), so every chunk of a completion names the one model
  // that served it (docs/tool-mode.md "Answers").
  const answerFor = (served: string | undefined) =>
    chat.answer({
      model: served || chat.publicModel,
      created,
      startedAt: state.startedAt,
      now: services.deps.now,
    });
  // A request that asks nothing (Ollama's "load the model": no message at all; the model was resolved as for any
  // chat) is answered by the format's whole answer of an empty message, without a backend call.
  if (chat.asksNothing) {
    sendJson(
      ctx,
      answerFor(undefined).whole({
        id: '',
        type: 'message',
        role: 'assistant',
        model: chat.publicModel,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      }),
    );
    return;
  }
  if (!chat.stream) {
    const whole = backend.message?.(chat.request, state.signal, context);
    let message: NativeMessage;
    if (whole) {
      message = await whole;
      nameServedModelOf(chat, message);
      observer.message(message as unknown as Record<string, unknown>);
    } else {
      message = await collectNativeMessage(backend.stream(chat.request, state.signal, context), (event) =>
        seeEvent(chat, observer, event),
      );
    }
    sendJson(ctx, answerFor(message.model).whole(message));
    return;
  }

  // The first event is awaited before any header goes out, so a refused request keeps its real status.
  const iterator = backend.stream(chat.request, state.signal, context)[Symbol.asyncIterator]();
  let first: IteratorResult<NativeStreamEvent>;
  try {
    first = await iterator.next();
    if (!first.done) {
      if (first.value.type === 'error') throw mapNativeError(first.value.error);
      seeEvent(chat, observer, first.value);
    }
  } catch (err) {
    await iterator.return?.(undefined);
    throw err;
  }
  const translate = answerFor(
    !first.done && first.value.type === 'message_start' ? first.value.message.model : undefined,
  ).stream();

  async function* sse(): AsyncGenerator<SseEvent> {
    try {
      for (let next = first; !next.done; next = await iterator.next()) {
        if (next !== first) seeEvent(chat, observer, next.value);
        yield* translate.step(next.value);
        // After an error event nothing more can be said; without one, the upstream's last events (message_stop)
        // are still read, so a provider connection ends cleanly and returns to its keep-alive pool.
        if (translate.failed()) break;
      }
      const end = translate.finish();
      yield* end.events;
      if (end.error) throw end.error;
    } catch (caught) {
      if (state.signal.aborted) return; // the client is gone: nobody to tell; the request log records the 499
      yield* failAfterHeaders(caught, state, translate.errors, logger());
    } finally {
      // Ends the CLI child, or the upstream request, when the client went away or the stream stopped early.
      await iterator.return?.(undefined);
    }
  }
  if (translate.framing === 'ndjson') sendNdjson(ctx, sse(), headers);
  else sendSse(ctx, sse(), headers);
}
