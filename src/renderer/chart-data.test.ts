import { describe, expect, it } from 'vitest';
import { trimToUptime, uptimeSeconds, xRange } from './chart-data.js';

describe('chart data', () => {
  const series = Array.from(
    { length: 60 },
    (_, i) => [1000 + i * 10, i === 59 ? 3 : 0, 0, i === 59 ? 12 : null] as [number, number, number, number | null],
  );

  it('reads the uptime the status reports', () => {
    expect(uptimeSeconds('0h 0m 2s')).toBe(2);
    expect(uptimeSeconds('1h 2m 3s')).toBe(3723);
    expect(uptimeSeconds(undefined)).toBeUndefined();
    expect(uptimeSeconds('soon')).toBeUndefined();
  });

  it('keeps only the slots the server has been up for (two seconds: the last two slots, not ten minutes)', () => {
    expect(trimToUptime(series, 2).map((p) => p[0])).toEqual([1580, 1590]);
    expect(trimToUptime(series, 95)).toHaveLength(11);
    expect(trimToUptime(series, 3600)).toHaveLength(60);
    expect(trimToUptime(series, undefined)).toHaveLength(60);
  });

  it('shows at least one minute of axis', () => {
    expect(xRange(1580, 1590)).toEqual([1530, 1590]);
    expect(xRange(1000, 1590)).toEqual([1000, 1590]);
  });
});
