import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, LogTap } from './logger.js';

const sink = () => {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
};
const flush = () => new Promise((r) => setTimeout(r, 20));

describe('LogTap', () => {
  it('keeps the structured lines the logger writes, with level names and increasing sequence numbers', async () => {
    const tap = new LogTap(10);
    const out = sink();
    const log = createLogger('debug', out.stream, tap);
    log.info({ requestId: 'req_1', status: 200 }, 'request');
    log.warn('slow');
    log.debug('detail');
    log.trace('below the level: not written');
    await flush();
    const page = tap.since(0);
    expect(page.lines.map((l) => [l.seq, l.level, l.msg])).toEqual([
      [1, 'info', 'request'],
      [2, 'warn', 'slow'],
      [3, 'debug', 'detail'],
    ]);
    expect(JSON.parse(page.lines[0].line)).toMatchObject({ requestId: 'req_1', status: 200, msg: 'request' });
    expect(page.nextSeq).toBe(3);
    // The destination still gets every line.
    expect(out.lines.join('')).toContain('"msg":"detail"');
    expect(tap.since(2).lines.map((l) => l.msg)).toEqual(['detail']);
    expect(tap.since(3).lines).toEqual([]);
  });

  it('is bounded: old lines fall out, and a reader that fell behind is told how many it missed', () => {
    const tap = new LogTap(3);
    for (let i = 1; i <= 8; i++) tap.write(`${JSON.stringify({ level: 30, time: 't', msg: `m${i}` })}\n`);
    expect(tap.since(0).lines.map((l) => l.msg)).toEqual(['m6', 'm7', 'm8']);
    expect(tap.since(2)).toMatchObject({ missed: 3, nextSeq: 8 });
    expect(tap.since(5).missed).toBe(0);
    const long = new LogTap(2, 100);
    long.write(JSON.stringify({ level: 30, msg: 'x'.repeat(500) }));
    expect(long.since(0).lines[0].line.length).toBeLessThanOrEqual(101);
  });

  it('tells subscribers about each line until they unsubscribe', () => {
    const tap = new LogTap();
    const seen: string[] = [];
    const off = tap.subscribe((l) => seen.push(l.msg));
    tap.write(JSON.stringify({ level: 40, msg: 'one' }));
    off();
    tap.write(JSON.stringify({ level: 40, msg: 'two' }));
    expect(seen).toEqual(['one']);
  });

  it('holds no secret: header and token fields are redacted by the logger, tokens in free text by the tap', async () => {
    const tap = new LogTap();
    const log = createLogger('info', sink().stream, tap);
    const token = 'sk-ant-oat01-AbCdEfGhIjKlMnOp-0123456789';
    const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyIn0.c2lnbmF0dXJlLXZhbHVl';
    log.info(
      {
        headers: { authorization: `Bearer ${token}`, 'x-api-key': token },
        creds: { accessToken: token, refresh_token: token },
        accessKey: 'a-long-proxy-access-key',
      },
      'upstream call',
    );
    log.error({ err: `refresh failed for ${token}` }, `could not refresh ${jwt}`);
    await flush();
    const all = JSON.stringify(tap.since(0));
    expect(tap.since(0).lines).toHaveLength(2);
    for (const secret of [token, jwt, 'a-long-proxy-access-key', 'AbCdEfGhIjKlMnOp']) expect(all).not.toContain(secret);
    expect(all).toContain('[redacted]');
  });
});
