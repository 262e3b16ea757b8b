import { describe, expect, it } from 'vitest';
import type { NativeStreamEvent } from '../../formats/native.js';
import { OpeningHold } from './opening-hold.js';

const start = { type: 'message_start', message: { id: 'm', model: 'x' } } as unknown as NativeStreamEvent;
const ping = { type: 'ping' } as NativeStreamEvent;
const delta = { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'hi' } } as NativeStreamEvent;

describe('OpeningHold', () => {
  it('holds the opening until the first content, then lets it out before that content, once', () => {
    const hold = new OpeningHold();
    let answering = 0;
    const onAnswering = () => void answering++;
    expect(hold.admit(start, onAnswering)).toBeUndefined();
    expect(hold.admit(ping, onAnswering)).toBeUndefined();
    expect(hold.answered).toBe(false);
    expect(hold.admit(delta, onAnswering)).toEqual([start, ping]);
    expect(hold.answered).toBe(true);
    expect(hold.admit(delta, onAnswering)).toEqual([]);
    expect(hold.admit(ping, onAnswering)).toEqual([]);
    expect(answering).toBe(1);
    expect(hold.release()).toEqual([]);
  });

  it('releases what it holds when a turn ends before any content', () => {
    const hold = new OpeningHold();
    hold.admit(start, () => undefined);
    expect(hold.release()).toEqual([start]);
    expect(hold.release()).toEqual([]);
    expect(hold.answered).toBe(false);
  });
});
