// Alerts about who pays and how long the limits last (docs/usage.md "Alerts"), each once per crossing:
//   extra_usage       the first request billed to extra usage (again after requests went back to the plan);
//   projected_limit   a window's pace projection (pace.ts) crosses 100 % before its reset (again once it fell back
//                     under, or in the window's next period);
//   available_again   a window that was exhausted (refused, or 100 % used) is usable again: its reset passed or the
//                     provider reports it allowed below 100 %.
// Pure: the memory, an event and the switches in; the notices due and the next memory out. The desktop app shows
// them as notifications (src/main/start-app.ts), the headless proxy writes each as a warn line with a stable
// message (usage/alert-watch.ts); both keep the memory in process.

import type { LaneAlertKind } from '../../shared/lane-alerts.js';
import type { Pace } from '../../shared/pace.js';
import type { BillingLane, QuotaWindow } from './types.js';

export interface LaneNotice {
  kind: LaneAlertKind;
  title: string;
  body: string;
  /** The stable text of the headless warn line (what a log watcher greps for). */
  logLine: string;
  window?: string;
  source?: string;
}

interface WindowMemory {
  /** The period (its reset, Unix s) the memory is about. */
  period: number | null;
  projected: boolean;
  exhausted: boolean;
}

export interface LaneAlertState {
  /** The last request with a known lane was billed to extra usage, and that was announced. */
  onExtraUsage: boolean;
  windows: Record<string, WindowMemory>;
}

export const emptyLaneAlertState = (): LaneAlertState => ({ onExtraUsage: false, windows: {} });

export type LaneAlertEvent =
  | { kind: 'request'; lane: BillingLane | null }
  | { kind: 'window'; window: QuotaWindow; pace: Pace | null; now: number };

const names: Record<string, string> = {
  five_hour: '5-hour',
  seven_day: '7-day',
  seven_day_opus: '7-day (largest models)',
  seven_day_sonnet: '7-day (mid-size models)',
};
const nameOf = (w: string) => names[w] ?? w.replace(/_/g, ' ');

export const defaultClock = (ms: number): string =>
  new Date(ms).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit', hour12: false });

/** The notices due for one event, and the memory to pass next time; a kind switched off is never announced (but still tracked, so turning it on does not announce an old crossing). */
export function stepLaneAlerts(
  state: LaneAlertState,
  event: LaneAlertEvent,
  on: ReadonlySet<LaneAlertKind>,
  clock: (ms: number) => string = defaultClock,
): { state: LaneAlertState; notices: LaneNotice[] } {
  const notices: LaneNotice[] = [];
  if (event.kind === 'request') {
    if (event.lane === null) return { state, notices };
    const extra = event.lane === 'extra_usage';
    if (extra && !state.onExtraUsage && on.has('extra_usage')) {
      notices.push({
        kind: 'extra_usage',
        title: 'A request was billed to extra usage',
        body: "The provider billed a request to extra usage instead of the plan's limits. See the Usage tab for which lane paid for each request.",
        logLine: 'quota alert: a request was billed to extra usage',
      });
    }
    return { state: { ...state, onExtraUsage: extra }, notices };
  }
  const { window: w, pace, now } = event;
  if (w.window === 'overage') return { state, notices };
  const key = `${w.source}:${w.window}`;
  let memory = state.windows[key];
  const periodOver = memory?.period != null && now >= memory.period * 1000;
  if (!memory) memory = { period: w.resetsAt, projected: false, exhausted: false };
  const name = nameOf(w.window);
  const exhaustedNow = w.status === 'rejected' || (w.utilization !== null && w.utilization >= 1);
  if (memory.exhausted && (periodOver || (!exhaustedNow && (w.status !== null || w.utilization !== null)))) {
    if (on.has('available_again')) {
      notices.push({
        kind: 'available_again',
        title: `Usage available again (${name} window)`,
        body: 'The window that was used up has reset; requests are served again.',
        logLine: 'quota alert: usage available again',
        window: w.window,
        source: w.source,
      });
    }
    memory = { ...memory, exhausted: false };
  }
  if (periodOver) memory = { period: w.resetsAt, projected: false, exhausted: false };
  memory = { ...memory, period: w.resetsAt ?? memory.period, exhausted: memory.exhausted || exhaustedNow };
  const projectedNow = pace !== null && pace.limitAt !== null && !exhaustedNow;
  if (projectedNow && !memory.projected && on.has('projected_limit')) {
    const at = pace.limitAt! * 1000;
    const reset = w.resetsAt ? `, before its reset at ${clock(w.resetsAt * 1000)}` : '';
    notices.push({
      kind: 'projected_limit',
      title: `At this pace the ${name} limit is reached at ${clock(at)}`,
      body: `${Math.round((w.utilization ?? 0) * 100)} % used; at the rate so far about ${Math.round(pace.expectedAtReset * 100)} % by the reset${reset}.`,
      logLine: 'quota alert: limit projected before reset',
      window: w.window,
      source: w.source,
    });
  }
  // Re-armed only once the projection falls back under 100 % (not on every wobble of a still-crossing pace).
  const projected = projectedNow ? true : pace !== null && pace.expectedAtReset < 1 ? false : memory.projected;
  memory = { ...memory, projected };
  return { state: { ...state, windows: { ...state.windows, [key]: memory } }, notices };
}
