// The one bounded reader (bounded-read.ts) and the error-body text read with it (upstream/read-limited.ts): a body
// read whole up to a bound, or its head and the paused rest when it is longer; a body that fails, closes before its
// end or misses its deadline rejects.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { errorBodyLimit, readLimited } from '../upstream/read-limited.js';
import { ClosedBeforeEnd, discardRest, readUpTo } from './bounded-read.js';

const bytes = (...pieces: string[]) =>
  Readable.from(
    pieces.map((p) => Buffer.from(p, 'utf8')),
    { objectMode: false },
  );

describe('readUpTo', () => {
  it('reads a body that ends within the bound whole, from every chunk', async () => {
    const read = await readUpTo(bytes('{"a":', '"é"}'), 100);
    expect(read.whole?.toString('utf8')).toBe('{"a":"é"}');
    expect(read.head).toHaveLength(2);
    expect(read.size).toBe(Buffer.byteLength('{"a":"é"}'));
  });

  it('gives an empty body, or one that already ended, as an empty Buffer', async () => {
    expect((await readUpTo(bytes(), 100)).whole).toEqual(Buffer.alloc(0));
    const ended = bytes('x');
    ended.resume();
    await new Promise((r) => ended.once('end', r));
    expect((await readUpTo(ended, 100)).whole).toEqual(Buffer.alloc(0));
  });

  it('stops past the bound with the head read so far, and the rest still readable in order', async () => {
    const body = new PassThrough();
    body.write('0123456789');
    body.write('abcdefghij');
    const read = await readUpTo(body, 15);
    expect(read.whole).toBeUndefined();
    expect(read.size).toBe(20);
    expect(Buffer.concat(read.head).toString()).toBe('0123456789abcdefghij');
    expect(body.isPaused()).toBe(true);
    body.end('rest');
    const rest: Buffer[] = [];
    for await (const chunk of body) rest.push(chunk as Buffer);
    expect(Buffer.concat(rest).toString()).toBe('rest');
  });

  it('rejects when the body fails or closes before its end, and when it was closed already', async () => {
    const failing = new PassThrough();
    const reading = readUpTo(failing, 100);
    failing.write('{"a"');
    failing.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow('socket hang up');
    await expect(readUpTo(failing, 100)).rejects.toThrow('socket hang up');
    const closed = new PassThrough();
    const closing = readUpTo(closed, 100);
    closed.destroy();
    await expect(closing).rejects.toBeInstanceOf(ClosedBeforeEnd);
    await expect(readUpTo(closed, 100)).rejects.toBeInstanceOf(ClosedBeforeEnd);
  });

  it('rejects with the deadline error when the body does not end in time, and pauses it', async () => {
    const dripping = new PassThrough();
    dripping.write('{"a"');
    const started = Date.now();
    await expect(readUpTo(dripping, 100, { deadline: { ms: 50, error: () => new Error('too slow') } })).rejects.toThrow(
      'too slow',
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(45);
    expect(dripping.isPaused()).toBe(true);
    expect(dripping.listenerCount('data')).toBe(0);
  });

  it('clears its deadline once the body ended', async () => {
    let asked = 0;
    const read = await readUpTo(bytes('ok'), 100, { deadline: { ms: 20, error: () => new Error(`late ${++asked}`) } });
    await new Promise((r) => setTimeout(r, 40));
    expect(read.whole?.toString()).toBe('ok');
    expect(asked).toBe(0);
  });
});

describe('readLimited', () => {
  it('reads a short body whole', async () => {
    const body = bytes('{"error":', '{"message":"é"}}');
    expect(await readLimited(body, 100)).toBe('{"error":{"message":"é"}}');
    expect(body.readableEnded).toBe(true);
  });

  it('stops at the limit and destroys the rest of the body', async () => {
    const body = new PassThrough();
    body.write('0123456789');
    body.write('abcdefghij');
    body.write('never read');
    expect(await readLimited(body, 15)).toBe('0123456789abcde');
    expect(body.destroyed).toBe(true);
  });

  it('reads up to 64 KiB by default', async () => {
    expect(await readLimited(bytes('x'.repeat(errorBodyLimit + 10)))).toHaveLength(errorBodyLimit);
  });

  it('drops the rest of a longer body whose destroy errors (as an upstream body does), with no unhandled error', async () => {
    const aborted = Object.assign(new Error('aborted'), { code: 'UND_ERR_ABORTED' });
    const body = new Readable({ read() {}, destroy: (_err, done) => done(aborted) });
    body.push(Buffer.alloc(10));
    const read = await readUpTo(body, 4);
    expect(read.whole).toBeUndefined();
    // Without the swallowed error, the 'error' event below would be uncaught and fail the run.
    discardRest(body);
    await new Promise((resolve) => body.once('close', resolve));
    expect(body.destroyed).toBe(true);
  });
});
