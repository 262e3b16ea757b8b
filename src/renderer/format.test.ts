import { describe, expect, it } from 'vitest';
import { fieldMessage, formatExpiry, formatMs, formatTokens } from './format.js';

describe('format', () => {
  it('durations', () => {
    expect(formatMs(null)).toBe('–');
    expect(formatMs(12.4)).toBe('12 ms');
    expect(formatMs(1534)).toBe('1.53 s');
    expect(formatMs(65_000)).toBe('65.0 s');
  });

  it('expiry relative to now', () => {
    const now = Date.parse('2025-06-01T12:00:00Z');
    expect(formatExpiry('2025-06-01T12:30:00Z', now)).toBe('in 30 min');
    expect(formatExpiry('2025-06-01T15:10:00Z', now)).toBe('in 3 h 10 min');
    expect(formatExpiry('2025-06-05T12:00:00Z', now)).toBe('in 4 days');
    expect(formatExpiry('2025-06-01T11:55:00Z', now)).toBe('expired 5 min ago');
    expect(formatExpiry(undefined, now)).toBe('–');
  });

  it('tokens', () => {
    expect(formatTokens()).toBe('–');
    expect(formatTokens(12, 40)).toBe('12 / 40');
    expect(formatTokens(12, undefined)).toBe('12 / –');
  });

  it('turns schema messages into field messages', () => {
    expect(fieldMessage('Invalid setting PORT (--port): expected an integer from 0 to 65535')).toBe(
      'Expected an integer from 0 to 65535',
    );
    expect(fieldMessage('Port 8000 already in use on 127.0.0.1: choose another port.')).toBe(
      'Port 8000 already in use on 127.0.0.1: choose another port.',
    );
  });
});
