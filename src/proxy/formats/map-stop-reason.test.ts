import { describe, expect, it } from 'vitest';
import { mapStopReason } from './map-stop-reason.js';

describe('mapStopReason', () => {
  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['tool_use', 'tool_calls'],
    ['pause_turn', 'stop'],
    ['refusal', 'content_filter'],
    ['some_future_reason', 'stop'],
    ['toString', 'stop'],
  ])('%s -> %s', (reason, expected) => {
    expect(mapStopReason(reason)).toBe(expected);
  });

  it('keeps null as null', () => {
    expect(mapStopReason(null)).toBeNull();
    expect(mapStopReason(undefined)).toBeNull();
  });
});
