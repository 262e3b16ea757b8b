// The byte-level reverse proxy of /api/v1/messages (docs/direct-mode.md): the client's body goes
// upstream as received (only a neutral model id is mapped, rewrite-body-model.ts), with its query string; the
// credential is chosen by client-auth.ts; the provider's status, headers (rate-limit ones included) and body come
// back as they are, each chunk written as it arrives (no buffering, no re-parsing:
// docs/lessons.md "Streams and clients"). What the answer says (first content delta, usage with cache tokens, served
// model, message_stop) is read from a copy by the one observer of a chat (chat-observer.ts), the same rules as every
// other route. Failures after the answer started cannot change the status (docs/principles.md "Errors after headers"):
// an SSE answer gets an `event: error` in the native shape (docs/interface.md "Native errors") from the one error
// writer (http/stream-error.ts) and ends; any other answer is cut, so the client sees a truncated body instead of a
// complete-looking one.

import { Readable } from 'node:stream';
import { ProxyError } from '../../errors.js';
import type { Services } from '../../services.js';
import { encodeSse } from '../../http/sse.js';
import { connectionNamed, hopByHopHeaders } from '../../http/hop-by-hop.js';
import { failAfterHeaders } from '../../http/stream-error.js';
import type { ProxyContext } from '../../http/types.js';
import { redactSecrets } from '../../redact.js';
import { firstValue } from '../../header-value.js';
import { clientAuthOf, forwardableHeaders } from '../../upstream/client-auth.js';
import type { ProviderAnswer, ProviderClient } from '../../upstream/provider-client.js';
import { rewriteBodyModel } from '../../upstream/rewrite-body-model.js';
import { fromTransportError } from '../../upstream/upstream-error.js';
import { ChatObserver } from '../../chat/chat-observer.js';
import { explainNativeRefusalBody } from '../../formats/map-native-error.js';
import { nativeErrorShape } from '../../formats/native-error-shape.js';

/**
 * Response headers not passed on: the hop-by-hop ones (http/hop-by-hop.ts), and browser policy that is this proxy's
 * to decide (its CORS setting; cookies the provider's edge sets must not land on localhost, where every local web
 * page could send them back).
 */
const dropped = new Set([...hopByHopHeaders, 'set-cookie']);

function copyAnswerHeaders(ctx: ProxyContext, answer: Pick<ProviderAnswer, 'headers'>): void {
  const headers = answer.headers;
  const named = connectionNamed(headers.connection);
  // for-in over undici's plain object, not Object.entries: no array of pairs on every answer.
  for (const name in headers) {
    const value = headers[name];
    // undici names headers in lower case; the check keeps this right for any other caller.
    const key = name.toLowerCase();
    if (value === undefined || dropped.has(key) || named?.has(key) || key.startsWith('access-control-')) continue;
    if (key === 'vary')
      ctx.vary(String(value)); // keeps the CORS middleware's Vary: Origin
    else ctx.set(key, value);
  }
}

/** Largest non-streaming answer read whole before it is passed on (larger ones are streamed through). */
const bufferLimit = 1024 * 1024;

/** True when `tail` (the last bytes sent) ends an SSE event, so an error event can follow without merging into it. */
function endsEvent(tail: string): boolean {
  return tail.endsWith('\n\n') || tail.endsWith('\r\n\r\n') || tail.endsWith('\r\r') || tail === '';
}

interface ForwardOptions {
  /** The body's model id as the provider knows it (the route resolved it once, modes/direct/routes.ts); absent: as sent. */
  providerModel?: string;
  /** The neutral name of the model an answer reports (the ledger's served model). */
  servedName?: (served: string) => string;
}

/** Forwards the request on ctx to `path` under the API base (POST with the body as received, or GET). */
export async function forwardToProvider(
  ctx: ProxyContext,
  services: Services,
  client: ProviderClient,
  method: 'GET' | 'POST',
  path: string,
  options: ForwardOptions = {},
): Promise<void> {
  const { profile, config, logger, deps } = services;
  const raw = ctx.state.rawBody;
  // A non-streamed answer of modest size is not a stream, whether it carries a content-length or comes chunked (a
  // CDN in front of the provider may re-chunk it): it arrives whole (upstream/whole-or-stream.ts) and goes out as
  // one Buffer, with a Content-Length, in one write, instead of piping a stream, whose terminator reached the client
  // several event-loop turns after the provider's last byte (docs/performance.md "The chunked answer"). Nothing has
  // been sent yet then, so a provider that breaks off
  // mid-answer still gets a proper error status. An event stream, or a longer answer, is streamed through.
  const auth = clientAuthOf(ctx.headers, profile, config.accessKey);
  const answer = await client.exchange(
    {
      method,
      path: ctx.querystring ? `${path}?${ctx.querystring}` : path,
      headers: forwardableHeaders(ctx.headers),
      body:
        method === 'POST' && raw && options.providerModel !== undefined
          ? rewriteBodyModel(raw, options.providerModel)
          : raw,
      auth,
      signal: ctx.state.signal,
    },
    bufferLimit,
  );

  ctx.status = answer.statusCode;
  // The one observer of this answer (chat/chat-observer.ts) reads a copy of the bytes; they pass on unchanged.
  const observer = new ChatObserver(ctx.state, { now: deps.now, servedName: options.servedName, quota: profile.quota });
  observer.answered();
  observer.providerAnswer(answer.headers, auth.kind === 'api-key' ? 'api-key' : 'oauth');
  const contentType = (firstValue(answer.headers['content-type']) ?? '').toLowerCase();
  if (answer.statusCode === 204 || answer.statusCode === 304) {
    copyAnswerHeaders(ctx, answer);
    answer.body?.destroy();
    ctx.body = null;
    return;
  }
  const isSse = contentType.includes('text/event-stream');
  const gzipped = answer.headers['content-encoding'] !== undefined;
  // A compressed answer is not read (its facts are then unknown; the client still gets every byte).
  const reads = !gzipped;
  if (reads) observer.readBytesOf(contentType);
  const state = ctx.state;
  if (isSse) ctx.req.socket.setNoDelay(true);

  if (answer.whole) {
    // One of the provider's billing refusals gets our explanation before its words (docs/usage.md "Lanes").
    const refused =
      answer.statusCode >= 400 && answer.statusCode < 500 && !gzipped
        ? explainNativeRefusalBody(answer.whole, profile.quota.refusals)
        : undefined;
    const whole = refused ?? answer.whole;
    copyAnswerHeaders(ctx, answer);
    // Read before the request log's record of this request (when the response ends), so the record has the
    // usage, served model and stop.
    if (reads) {
      observer.bytes(whole);
      observer.end();
    }
    ctx.body = whole;
    return;
  }

  const body = answer.body;
  copyAnswerHeaders(ctx, answer);
  // A successful native stream is complete only with its message_stop event; one the provider ends cleanly
  // before that must not look finished to the client (docs/direct-mode.md), nor count as `ok` in the ledger.
  const mustStop = reads && isSse && answer.statusCode < 300 && /\/messages$/.test(path);
  async function* pipe(): AsyncGenerator<Buffer> {
    let tail = '';
    try {
      for await (const chunk of body as AsyncIterable<Buffer>) {
        if (chunk.length === 0) continue;
        if (reads) observer.bytes(chunk);
        if (isSse) tail = chunk.subarray(Math.max(0, chunk.length - 4)).toString('latin1');
        yield chunk;
      }
      if (reads) observer.end();
      if (mustStop && !observer.stopped && !state.signal.aborted) {
        throw new ProxyError(
          'upstream',
          'The provider ended the stream before its end (no message_stop); the answer is incomplete',
        );
      }
    } catch (err) {
      if (state.signal.aborted) return; // the client is gone; nothing to tell
      const error = fromTransportError(err, client.timeouts);
      if (!isSse) {
        // Not a stream: there is no in-band way to say it; the answer is cut so it cannot look complete.
        state.errorType = nativeErrorShape.typeName(error);
        logger.warn(
          { requestId: state.requestId, kind: error.kind, reason: redactSecrets(error.message) },
          'provider answer broke off',
        );
        throw error;
      }
      const events = failAfterHeaders(error, state, nativeErrorShape, logger);
      yield Buffer.from((endsEvent(tail) ? '' : '\n\n') + events.map(encodeSse).join(''), 'utf8');
    } finally {
      if (reads) observer.end();
      if (!body.destroyed) body.destroy();
    }
  }
  ctx.body = Readable.from(pipe(), { objectMode: false });
}
