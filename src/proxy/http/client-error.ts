// What node's HTTP parser refuses before Koa sees a request (docs/http.md "Requests node refuses"): a malformed
// request line or header, a head over node's header-size limit, a head or body not received in time. Node's own
// answer is a bare status line, without X-Content-Type-Options: nosniff, which every other answer of ours carries
// (request-id.ts, docs/security.md). This answers with the status node would (400; 431 for a head over the limit;
// 413 for chunk extensions over theirs; 408 for the receive deadlines), `Connection: close`, nosniff and a small JSON
// body, then destroys the socket as node does. The request's route family is not known here (the request line may
// be what failed to parse), so the body has the general shape (docs/interface.md "General errors"), whose
// `error.message` is where the compatible and native shapes keep their message too.
//
// Nothing is written on a socket that cannot take it: one already closed or reset, or one whose in-flight answer has
// already sent its headers (a refusal written then would corrupt that answer). A parser error is logged like a
// guard's refusal: once a minute per error code at warn, the rest at debug (refusal-log.ts).

import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ProxyError, type ErrorKind } from '../errors.js';
import { generalErrorShape } from './error-shape.js';
import type { RefusalLog } from './refusal-log.js';

interface Refusal {
  status: number;
  kind: ErrorKind;
  message: string;
  issue: string;
}

/** node's parser error codes are upper-case words (`HPE_INVALID_METHOD`); anything else is not shown. */
const codeShape = /^[A-Z][A-Z0-9_]{0,63}$/;

/** The answer to a parser error, by its code: the status node itself would send, and what to tell the client. */
export function refusalOf(code: string | undefined): Refusal {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        kind: 'invalid_request',
        message: `Request header fields too large: the request line and headers together must stay under ${maxHeaderSize} bytes`,
        issue: 'request head too large',
      };
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return {
        status: 413,
        kind: 'payload_too_large',
        message: 'Chunk extensions too large: the chunked body carries more extension data than the server accepts',
        issue: 'chunk extensions too large',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return {
        status: 408,
        kind: 'timeout',
        message: 'The request was not received in time; send the whole request at once',
        issue: 'request not received in time',
      };
    default: {
      const shown = code !== undefined && codeShape.test(code) ? ` (${code})` : '';
      return {
        status: 400,
        kind: 'invalid_request',
        message: `The request is not valid HTTP/1.1${shown}`,
        issue: 'malformed HTTP request',
      };
    }
  }
}

/** The whole answer, head and body, as bytes. */
export function clientErrorAnswer(refusal: Refusal): Buffer {
  const body = JSON.stringify(
    generalErrorShape.body(
      new ProxyError(refusal.kind, refusal.message, { field: 'request', issue: refusal.issue, status: refusal.status }),
    ),
  );
  return Buffer.from(
    `HTTP/1.1 ${refusal.status} ${STATUS_CODES[refusal.status] ?? 'Error'}\r\n` +
      'Connection: close\r\n' +
      'Content-Type: application/json\r\n' +
      'X-Content-Type-Options: nosniff\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      '\r\n' +
      body,
    'utf8',
  );
}

interface ClientErrorOptions {
  log(level: 'warn' | 'debug', fields: Record<string, unknown>, message: string): void;
  refusals: RefusalLog;
}

/** The server's 'clientError' listener. */
export function onClientError(opts: ClientErrorOptions): (err: NodeJS.ErrnoException, socket: Duplex) => void {
  return (err, socket) => {
    // node's own check (its socketOnError): the socket's in-flight answer, when one has started, owns the bytes.
    const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || inFlight?.headersSent === true) {
      socket.destroy();
      return;
    }
    const refusal = refusalOf(err.code);
    socket.write(clientErrorAnswer(refusal));
    socket.destroy();
    const { level, refusedSinceLastWarn } = opts.refusals.note(`HTTP parser ${err.code ?? 'error'}`);
    opts.log(
      level,
      { status: refusal.status, code: err.code, reason: refusal.issue, refusedSinceLastWarn },
      'request refused by the HTTP parser',
    );
  };
}
