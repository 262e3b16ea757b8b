// The requests/latency chart: uPlot (small, maintained, canvas) over metrics.series, one point per 10 s, trimmed
// to the server's uptime (chart-data.ts). Its legend is plain HTML in the page (uPlot's own shows "--" values and
// wraps), its colours come from the theme's CSS variables, and it follows the container's width.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricsSummary } from '../proxy/control-api.js';
import { trimToUptime, xRange } from './chart-data.js';

export interface Chart {
  update(series: MetricsSummary['series'], uptimeSec: number | undefined): void;
}

export function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || '#888';
}

function toChartData(series: MetricsSummary['series']): uPlot.AlignedData {
  return [series.map((p) => p[0]), series.map((p) => p[1]), series.map((p) => p[2]), series.map((p) => p[3])];
}

const HEIGHT = 180;

/** A plot that follows its container's width, rebuilt with the new colours when the OS switches light and dark. */
export function responsivePlot(
  build: () => uPlot,
  container: HTMLElement,
  width: () => number,
  height: number,
): { readonly plot: uPlot } {
  const live = { plot: build() };
  new ResizeObserver(() => live.plot.setSize({ width: width(), height })).observe(container);
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', () => {
    live.plot.destroy();
    live.plot = build();
  });
  return live;
}

export function createChart(container: HTMLElement): Chart {
  const width = () => Math.max(200, container.clientWidth);
  let data: uPlot.AlignedData = [[], [], [], []];
  const build = () => {
    const axis = {
      stroke: cssVar('--muted'),
      grid: { stroke: cssVar('--border') },
      ticks: { stroke: cssVar('--border') },
    };
    return new uPlot(
      {
        width: width(),
        height: HEIGHT,
        legend: { show: false },
        cursor: { drag: { x: false, y: false } },
        scales: {
          x: { time: true, range: (_u, min, max) => xRange(min, max) },
          y: { range: (_u, _min, max) => [0, Math.max(2, max)] },
          ms: { auto: true },
        },
        series: [
          {},
          { label: 'Requests / 10 s', stroke: cssVar('--series-requests'), width: 2 },
          { label: 'Errors', stroke: cssVar('--series-errors'), width: 2 },
          {
            label: 'Latency p50 (ms)',
            stroke: cssVar('--series-latency'),
            scale: 'ms',
            width: 1.5,
            dash: [4, 3],
            spanGaps: true,
          },
        ],
        // Plain clock times: uPlot's default adds a date line that is cut at the left edge.
        axes: [
          {
            ...axis,
            space: 90,
            values: (_u, splits) =>
              splits.map((t) => new Date(t * 1000).toLocaleTimeString(undefined, { hour12: false })),
          },
          { ...axis, size: 40 },
          { ...axis, side: 1, scale: 'ms', size: 50, grid: { show: false } },
        ],
      },
      data,
      container,
    );
  };
  const live = responsivePlot(build, container, width, HEIGHT);
  let last = '';
  return {
    update(series, uptimeSec) {
      const shown = trimToUptime(series, uptimeSec);
      const key = JSON.stringify(shown);
      if (key === last) return;
      last = key;
      data = toChartData(shown);
      container.dataset.points = String(shown.length);
      container.dataset.spanSeconds = String(shown.length ? shown[shown.length - 1][0] - shown[0][0] : 0);
      live.plot.setData(data);
    },
  };
}
