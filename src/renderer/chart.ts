// The requests/latency chart: uPlot (small, maintained, canvas) over metrics.series, one point per 10 s for
// the last 10 minutes. Created once, fed with setData, resized with its container.

import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { MetricsSummary } from '../proxy/control-api.js';

export interface Chart {
  update(series: MetricsSummary['series']): void;
}

export function toChartData(series: MetricsSummary['series']): uPlot.AlignedData {
  return [series.map((p) => p[0]), series.map((p) => p[1]), series.map((p) => p[2]), series.map((p) => p[3])];
}

export function createChart(container: HTMLElement): Chart {
  const width = () => Math.max(300, container.clientWidth);
  const plot = new uPlot(
    {
      width: width(),
      height: 180,
      legend: { show: true },
      scales: { x: { time: true }, ms: { auto: true } },
      series: [
        {},
        { label: 'Requests / 10 s', stroke: '#2f7de1', fill: 'rgba(47,125,225,0.12)', width: 2 },
        { label: 'Errors', stroke: '#d9480f', width: 2 },
        { label: 'Latency p50 (ms)', stroke: '#7048e8', scale: 'ms', width: 1.5, dash: [4, 3], spanGaps: true },
      ],
      axes: [{}, { label: 'requests' }, { side: 1, scale: 'ms', label: 'ms', grid: { show: false } }],
    },
    [[], [], [], []],
    container,
  );
  new ResizeObserver(() => plot.setSize({ width: width(), height: 180 })).observe(container);
  let last = '';
  return {
    update(series) {
      const key = JSON.stringify(series);
      if (key === last) return;
      last = key;
      plot.setData(toChartData(series));
    },
  };
}
