import { describe, expect, it } from 'vitest';
import { RequestAbort } from './request-abort.js';

describe('RequestAbort', () => {
  it('aborts a signal that was asked for before the abort', () => {
    const a = new RequestAbort();
    const signal = a.signal;
    let fired = 0;
    signal.addEventListener('abort', () => fired++);
    a.abort(new Error('client disconnected'));
    a.abort(new Error('again'));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe('client disconnected');
    expect(fired).toBe(1);
  });

  it('hands out an already aborted signal, with the first reason, when the abort came first', () => {
    const a = new RequestAbort();
    expect(a.aborted).toBe(false);
    a.abort(new Error('server shutting down'));
    expect(a.aborted).toBe(true);
    expect(a.signal.aborted).toBe(true);
    expect((a.signal.reason as Error).message).toBe('server shutting down');
  });

  it('is the same signal every time', () => {
    const a = new RequestAbort();
    expect(a.signal).toBe(a.signal);
  });
});
