// The bounded reads of an upstream body: an error body's text up to the limit (a longer body is dropped with its
// connection), and an answer read whole up to a bound, or its head and the paused rest when it is longer.
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readLimited, readUpTo } from './read-limited.js';

function body(pieces: string[]) {
  const state = { destroyed: false, read: 0 };
  return {
    state,
    async *[Symbol.asyncIterator]() {
      for (const p of pieces) {
        state.read++;
        yield Buffer.from(p, 'utf8');
      }
    },
    destroy() {
      state.destroyed = true;
    },
  };
}

describe('readLimited', () => {
  it('reads a short body whole', async () => {
    const b = body(['{"error":', '{"message":"é"}}']);
    expect(await readLimited(b, 100)).toBe('{"error":{"message":"é"}}');
    expect(b.state.destroyed).toBe(false);
  });

  it('stops at the limit and destroys the rest of the body', async () => {
    const b = body(['0123456789', 'abcdefghij', 'never read']);
    expect(await readLimited(b, 15)).toBe('0123456789abcde');
    expect(b.state).toEqual({ destroyed: true, read: 2 });
  });
});

describe('readUpTo', () => {
  it('reads a body that ends within the bound whole, from every chunk', async () => {
    const read = await readUpTo(Readable.from([Buffer.from('{"a":'), Buffer.from('"é"}')], { objectMode: false }), 100);
    expect(read.whole?.toString('utf8')).toBe('{"a":"é"}');
    expect(read.head).toHaveLength(2);
  });

  it('gives an empty body as an empty Buffer', async () => {
    const read = await readUpTo(Readable.from([], { objectMode: false }), 100);
    expect(read.whole).toEqual(Buffer.alloc(0));
  });

  it('stops past the bound with the head read so far, and the rest still readable in order', async () => {
    const body = new PassThrough();
    body.write('0123456789');
    body.write('abcdefghij');
    const read = await readUpTo(body, 15);
    expect(read.whole).toBeUndefined();
    expect(Buffer.concat(read.head).toString()).toBe('0123456789abcdefghij');
    body.end('rest');
    const rest: Buffer[] = [];
    for await (const chunk of body) rest.push(chunk as Buffer);
    expect(Buffer.concat(rest).toString()).toBe('rest');
  });

  it('rejects when the body fails or closes before its end', async () => {
    const failing = new PassThrough();
    const reading = readUpTo(failing, 100);
    failing.write('{"a"');
    failing.destroy(new Error('socket hang up'));
    await expect(reading).rejects.toThrow('socket hang up');
    const closed = new PassThrough();
    const closing = readUpTo(closed, 100);
    closed.destroy();
    await expect(closing).rejects.toThrow('closed before its end');
    await expect(readUpTo(closed, 100)).rejects.toThrow('closed before its end');
  });
});
