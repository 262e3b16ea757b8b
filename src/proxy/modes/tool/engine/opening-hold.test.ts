import { describe, expect, it } from 'vitest';
import type { NativeStreamEvent } from '../../../formats/native.js';
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

  it('holds every event of an answer read whole until the turn ends, marking the first content once', () => {
    const hold = new OpeningHold(true);
    let answering = 0;
    const onAnswering = () => void answering++;
    const stop = { type: 'message_stop' } as NativeStreamEvent;
    for (const event of [start, delta, delta, stop]) expect(hold.admit(event, onAnswering)).toBeUndefined();
    // The deadline learns the answer began; the client has still been sent nothing, so a dead process can be replaced.
    expect(answering).toBe(1);
    expect(hold.answered).toBe(false);
    expect(hold.release()).toEqual([start, delta, delta, stop]);
    expect(hold.release()).toEqual([]);
  });
});
