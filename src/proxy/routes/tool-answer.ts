// The answer half of a tool-mode chat: one backend event stream -> the route's output shape.
//   messages     native message JSON, or the native event stream WITH `event:` lines (message_start ...
//                message_stop) so the official native SDK's stream helper consumes it
//   native-chat  completion JSON (SPEC.md §2.4), or §6.2 data-only events ending with [DONE]
//   compat       completion JSON (§2.4), or §6.1 chunks ending with [DONE]
// A failure before the first event is an ordinary HTTP error (the status is still free). After that, it becomes one
// error event in the stream's own format, and the stream ends (STYLE.md habit 7).

import { randomBytes } from 'node:crypto';
import type { CliBackend } from '../backends/cli-backend.js';
import { ProxyError, isProxyError } from '../errors.js';
import type { NativeStreamEvent } from '../formats/native.js';
import type { SseEvent } from '../http/sse.js';
import { sendSse } from '../http/sse.js';
import { markFirstToken } from '../http/state.js';
import type { ProxyContext } from '../http/types.js';
import { ignoredParamsHeader, ignoredParamsValue } from '../http/ignored-params.js';
import { renderError, errorTypeName } from '../http/render-error.js';
import { redactSecrets } from '../logger.js';
import type { Services } from '../services.js';
import { createCompatChunkState, finishCompatChunks, stepCompatChunks } from '../translate/native-events-to-compat-chunks.js';
import { createNativeChatStreamState, finishNativeChatStream, stepNativeChatStream } from '../translate/native-events-to-chat-stream.js';
import { collectNativeMessage } from '../translate/native-events-to-message.js';
import { nativeMessageToCompletion } from '../translate/native-message-to-completion.js';
import { reportedTokensOf } from '../translate/map-usage.js';
import type { ToolChat } from './tool.js';

export type ChatOutput = 'messages' | 'native-chat' | 'compat';


/** Marks the first token for metrics and keeps the final usage on ctx.state as events pass. */
async function* observe(ctx: ProxyContext, services: Services, chat: ToolChat, events: AsyncIterable<NativeStreamEvent>): AsyncGenerator<NativeStreamEvent> {
  for await (const event of events) {
    if (event.type === 'message_start') {
      // Every answer names the model that really served it, in the neutral naming (docs/clients.md "Model ids").
      if (chat.servedName) event.message.model = chat.servedName(event.message.model);
      ctx.state.modelServed = event.message.model;
      ctx.state.usage = reportedTokensOf(event.message.usage);
    } else if (event.type === 'content_block_delta') {
      markFirstToken(ctx.state, services.deps.now());
    } else if (event.type === 'message_delta') {
      ctx.state.usage = reportedTokensOf(event.usage, ctx.state.usage);
    }
    yield event;
  }
}

function completionMeta(chat: ToolChat, services: Services) {
  return {
    id: `chatcmpl-${randomBytes(12).toString('hex')}`,
    model: chat.publicModel ?? chat.request.model,
    created: Math.floor(services.deps.now() / 1000),
  };
}

/** An error after headers were sent: any non-ProxyError is our bug, logged and reported without its details. */
function streamError(err: unknown, ctx: ProxyContext, services: Services): ProxyError {
  if (isProxyError(err)) return err;
  services.logger.error({ requestId: ctx.state.requestId, err }, 'unexpected error inside a tool-mode stream');
  return new ProxyError('internal', 'Internal server error: the proxy hit an unexpected condition; see its log for details');
}

export async function answerChat(ctx: ProxyContext, services: Services, backend: CliBackend, chat: ToolChat): Promise<void> {
  const log = services.logger.child({ requestId: ctx.state.requestId });
  ctx.state.model = chat.request.model;
  ctx.state.stream = chat.stream;
  const headers: Record<string, string> = {};
  if (chat.ignored.length > 0) {
    headers[ignoredParamsHeader] = ignoredParamsValue(chat.ignored);
    // The header tells the client once per response; a warning per request would flood the log (docs/tool-mode.md).
    log.debug({ ignored: chat.ignored }, 'request parameters the assistant CLI cannot honour were ignored');
  }
  if (chat.warnings.length > 0) log.warn({ warnings: chat.warnings }, 'lossy request translation');
  for (const [k, v] of Object.entries(headers)) ctx.set(k, v);

  const events = observe(ctx, services, chat, backend.stream(chat.request, ctx.state.signal, { logger: log }));
  if (!chat.stream) {
    const message = await collectNativeMessage(events);
    ctx.body = chat.output === 'messages' ? message : nativeMessageToCompletion(message, completionMeta(chat, services));
    return;
  }

  // Wait for the first event before any header goes out, so an early failure keeps its HTTP status.
  const iterator = events[Symbol.asyncIterator]();
  const first = await iterator.next();
  const family = ctx.state.family;
  const translate = translatorOf(chat, services);

  async function* sse(): AsyncGenerator<SseEvent> {
    try {
      let next = first;
      while (!next.done) {
        yield* translate.step(next.value);
        next = await iterator.next();
      }
      const end = translate.finish();
      yield* end.events;
      if (end.error) throw end.error;
      if (translate.done) yield { data: '[DONE]' };
    } catch (caught) {
      const err = streamError(caught, ctx, services);
      ctx.state.errorType = errorTypeName(err, family);
      log.warn({ kind: err.kind, error: redactSecrets(err.message) }, 'tool-mode stream failed after it started');
      const body = renderError(new ProxyError(err.kind, redactSecrets(err.message)), family, ctx.state.requestId);
      yield chat.output === 'messages' ? { event: 'error', data: body } : { data: body };
      if (translate.done) yield { data: '[DONE]' };
    } finally {
      // Ends the CLI child when the client went away or the stream stopped early.
      await iterator.return?.(undefined);
    }
  }
  sendSse(ctx, sse(), headers);
}

interface Translator {
  step(event: NativeStreamEvent): SseEvent[];
  finish(): { events: SseEvent[]; error?: ProxyError };
  /** Data-only streams end with the [DONE] sentinel (SPEC.md §6); the native event stream does not. */
  done: boolean;
}

function translatorOf(chat: ToolChat, services: Services): Translator {
  if (chat.output === 'messages') {
    let stopped = false;
    return {
      done: false,
      step: (event) => {
        if (event.type === 'message_stop') stopped = true;
        return [{ event: event.type, data: event }];
      },
      finish: () => ({ events: [], error: stopped ? undefined : new ProxyError('internal', 'The assistant CLI stream ended without message_stop') }),
    };
  }
  if (chat.output === 'native-chat') {
    const state = createNativeChatStreamState({ model: chat.publicModel ?? chat.request.model });
    return {
      done: true,
      step: (event) => stepNativeChatStream(event, state).map((data) => ({ data })),
      finish: () => {
        const end = finishNativeChatStream(state);
        return { events: end.events.map((data) => ({ data })), error: end.error };
      },
    };
  }
  const state = createCompatChunkState({ ...completionMeta(chat, services), includeUsage: chat.includeUsage });
  return {
    done: true,
    step: (event) => stepCompatChunks(event, state).map((data) => ({ data })),
    finish: () => {
      const end = finishCompatChunks(state);
      return { events: end.chunks.map((data) => ({ data })), error: end.error };
    },
  };
}
