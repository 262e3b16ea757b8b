// Bar charts of the Usage tab (uPlot): requests with their errors drawn over them (errors are a part of the
// requests), either per day (a time axis) or per model / mode (a category axis). Colours from the theme; the
// width follows the container.

import uPlot from 'uplot';
import { cssVar, responsivePlot } from './chart.js';

export interface BarChart {
  update(x: number[], requests: number[], errors: number[], labels?: string[]): void;
}

const HEIGHT = 160;

export function createBarChart(container: HTMLElement, kind: 'time' | 'category'): BarChart {
  const width = () => Math.max(200, container.clientWidth);
  let labels: string[] = [];
  let data: uPlot.AlignedData = [[], [], []];
  const bars = (factor: number) => uPlot.paths.bars!({ size: [factor, 48] });
  const build = () => {
    const axis = {
      stroke: cssVar('--muted'),
      grid: { stroke: cssVar('--border') },
      ticks: { stroke: cssVar('--border') },
    };
    const xAxis =
      kind === 'category'
        ? {
            ...axis,
            grid: { show: false },
            splits: () => labels.map((_, i) => i),
            values: (_u: uPlot, splits: number[]) => splits.map((i) => short(labels[i] ?? '')),
          }
        : {
            ...axis,
            space: 60,
            values: (_u: uPlot, splits: number[]) =>
              splits.map((t) => new Date(t * 1000).toLocaleDateString(undefined, { month: 'short', day: 'numeric' })),
          };
    return new uPlot(
      {
        width: width(),
        height: HEIGHT,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x:
            kind === 'category'
              ? { time: false, range: () => [-0.5, Math.max(0.5, labels.length - 0.5)] }
              : { time: true, range: (_u, min, max) => [min - 43_200, max + 43_200] },
          y: { range: (_u, _min, max) => [0, Math.max(2, Math.ceil(max * 1.1))] },
        },
        series: [
          {},
          {
            label: 'Requests',
            fill: cssVar('--series-requests'),
            stroke: cssVar('--series-requests'),
            paths: bars(0.7),
            points: { show: false },
          },
          {
            label: 'Errors',
            fill: cssVar('--series-errors'),
            stroke: cssVar('--series-errors'),
            paths: bars(0.35),
            points: { show: false },
          },
        ],
        axes: [xAxis, { ...axis, size: 44 }],
      },
      data,
      container,
    );
  };
  const live = responsivePlot(build, container, width, HEIGHT);
  return {
    update(x, requests, errors, names) {
      labels = names ?? [];
      data = [x, requests, errors];
      container.dataset.bars = String(x.length);
      live.plot.setData(data);
    },
  };
}

/** Category labels fit under their bar: long model ids lose their date suffix, then their middle. */
export function short(label: string): string {
  const s = label.replace(/-\d{8}$/, '');
  return s.length <= 18 ? s : `${s.slice(0, 8)}…${s.slice(-8)}`;
}
