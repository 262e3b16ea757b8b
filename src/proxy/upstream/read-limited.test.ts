// The bounded read of an upstream error body: text up to the limit, and a longer body is dropped with its connection.
import { describe, expect, it } from 'vitest';
import { readLimited } from './read-limited.js';

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
