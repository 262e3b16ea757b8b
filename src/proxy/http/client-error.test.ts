// The answer to what node's parser refuses: node's own status, plus nosniff, Connection: close and a general body
// (docs/interface.md "General errors"); and nothing written on a socket that cannot take it.
// test/security-local.test.ts sends the real bytes.

import type { Duplex } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { clientErrorAnswer, onClientError, refusalOf } from './client-error.js';
import { RefusalLog } from './refusal-log.js';

function parse(answer: Buffer): { statusLine: string; headers: Record<string, string>; body: unknown } {
  const text = answer.toString('utf8');
  const [head, body] = text.split('\r\n\r\n');
  const [statusLine, ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  expect(Number(headers['content-length'])).toBe(Buffer.byteLength(body));
  return { statusLine, headers, body: JSON.parse(body) };
}

function err(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(code), { code });
}

describe('refusalOf and clientErrorAnswer', () => {
  const cases: Array<[string | undefined, string, string]> = [
    ['HPE_INVALID_METHOD', 'HTTP/1.1 400 Bad Request', 'validation_error'],
    ['HPE_INVALID_CONSTANT', 'HTTP/1.1 400 Bad Request', 'validation_error'],
    [undefined, 'HTTP/1.1 400 Bad Request', 'validation_error'],
    ['HPE_HEADER_OVERFLOW', 'HTTP/1.1 431 Request Header Fields Too Large', 'validation_error'],
    ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 'HTTP/1.1 413 Payload Too Large', 'payload_too_large'],
    ['ERR_HTTP_REQUEST_TIMEOUT', 'HTTP/1.1 408 Request Timeout', 'timeout'],
  ];
  for (const [code, statusLine, type] of cases) {
    it(`${code ?? 'no code'}: ${statusLine}`, () => {
      const answer = parse(clientErrorAnswer(refusalOf(code)));
      expect(answer.statusLine).toBe(statusLine);
      expect(answer.headers).toMatchObject({
        connection: 'close',
        'content-type': 'application/json',
        'x-content-type-options': 'nosniff',
      });
      expect(answer.body).toMatchObject({ error: { type, details: { field: 'request' } } });
    });
  }

  it('names the parser code in the message, and only a code-shaped one', () => {
    expect(refusalOf('HPE_INVALID_METHOD').message).toBe('The request is not valid HTTP/1.1 (HPE_INVALID_METHOD)');
    expect(refusalOf('weird <code>').message).toBe('The request is not valid HTTP/1.1');
  });
});

describe('onClientError', () => {
  /** What the handler touches of a socket: writable, write, destroy, and node's in-flight answer. */
  function socket(opts: { writable?: boolean; headersSent?: boolean } = {}) {
    const fake = {
      writable: opts.writable ?? true,
      destroyed: false,
      written: [] as Buffer[],
      _httpMessage: opts.headersSent === undefined ? null : { headersSent: opts.headersSent },
      write(chunk: Buffer) {
        if (this.destroyed) throw new Error('write after destroy');
        this.written.push(chunk);
        return true;
      },
      destroy() {
        this.destroyed = true;
      },
    };
    return fake;
  }
  const asSocket = (fake: ReturnType<typeof socket>) => fake as unknown as Duplex;
  const logged: Array<[string, Record<string, unknown>]> = [];
  const handler = onClientError({
    log: (level, fields) => logged.push([level, fields]),
    refusals: new RefusalLog(() => 0),
  });

  it('answers, then destroys the socket, and logs once at warn per code', () => {
    for (let i = 0; i < 3; i++) {
      const s = socket();
      handler(err('HPE_INVALID_METHOD'), asSocket(s));
      expect(s.destroyed).toBe(true);
      expect(Buffer.concat(s.written).toString()).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    }
    expect(logged.map(([level]) => level)).toEqual(['warn', 'debug', 'debug']);
    expect(logged[0][1]).toMatchObject({ status: 400, code: 'HPE_INVALID_METHOD' });
  });

  it('writes nothing on a socket that is not writable, was reset, or whose answer has begun; destroys it', () => {
    const cases = [
      { s: socket({ writable: false }), e: err('HPE_INVALID_METHOD') },
      { s: socket(), e: err('ECONNRESET') },
      { s: socket({ headersSent: true }), e: err('ERR_HTTP_REQUEST_TIMEOUT') },
    ];
    const before = logged.length;
    for (const c of cases) {
      handler(c.e, asSocket(c.s));
      expect(c.s.written).toEqual([]);
      expect(c.s.destroyed).toBe(true);
    }
    expect(logged.length).toBe(before);
  });

  it('answers when an in-flight answer has not sent its headers yet (as node does)', () => {
    const s = socket({ headersSent: false });
    handler(err('ERR_HTTP_REQUEST_TIMEOUT'), asSocket(s));
    expect(Buffer.concat(s.written).toString()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });
});
