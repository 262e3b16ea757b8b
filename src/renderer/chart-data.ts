// The live chart's data, pure (tested without a browser): the metrics series trimmed to the time the server has
// been up, so two seconds after a start the chart shows two seconds, not ten minutes of empty axis.

import type { MetricsSummary } from '../proxy/control-api.js';

type Series = MetricsSummary['series'];

/** "1h 2m 3s" (ControlStatus.uptime, formatUptime's shape) to seconds; undefined when absent or unreadable. */
export function uptimeSeconds(uptime: string | undefined): number | undefined {
  const m = uptime ? /^(\d+)h (\d+)m (\d+)s$/.exec(uptime.trim()) : null;
  return m ? Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]) : undefined;
}

/** Points (10 s slots) that lie within the server's uptime; the slot the server started in is kept. */
export function trimToUptime(series: Series, uptimeSec: number | undefined, slotSec = 10): Series {
  if (uptimeSec === undefined || series.length === 0) return series;
  const last = series[series.length - 1][0];
  const firstSlot = last - Math.ceil(uptimeSec / slotSec) * slotSec;
  return series.filter((p) => p[0] >= firstSlot);
}

/** The x range shown: the data's span, at least one minute wide (ending at the newest point). */
export function xRange(min: number | null, max: number | null, minSpanSec = 60): [number, number] {
  const hi = max ?? Math.floor(Date.now() / 1000);
  const lo = min ?? hi - minSpanSec;
  return [Math.min(lo, hi - minSpanSec), hi];
}
