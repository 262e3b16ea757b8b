// Runs the lane alerts (lane-alerts.ts) on a ledger's records and quota observations as they arrive, and hands each
// notice to `notify`: the headless proxy writes a warn line with the notice's stable text, the desktop app shows a
// notification too. Which kinds are on is read at each event (the settings may change while running).

import type { QuotaNames } from '../profile.js';

import { emptyLaneAlertState, stepLaneAlerts, type LaneAlertEvent, type LaneNotice } from './lane-alerts.js';
import type { UsageLedger } from './ledger.js';

import { paceOf, windowSeconds } from '../../shared/pace.js';
import type { LaneAlertKind } from '../../shared/lane-alerts.js';

interface AlertWatchOptions {
  kinds: () => ReadonlySet<LaneAlertKind>;
  names: QuotaNames;
  now?: () => number;
  notify(notice: LaneNotice): void;
  clock?: (ms: number) => string;
}

/** Starts watching; returns the function that stops it. */
export function watchLaneAlerts(
  ledger: Pick<UsageLedger, 'onRecord' | 'onQuota'>,
  opts: AlertWatchOptions,
): () => void {
  let state = emptyLaneAlertState();
  const now = opts.now ?? Date.now;
  const step = (event: LaneAlertEvent) => {
    const due = stepLaneAlerts(state, event, opts.kinds(), opts.clock);
    state = due.state;
    for (const n of due.notices) opts.notify(n);
  };
  const offRecord = ledger.onRecord((r) => {
    if (r.mode !== null) step({ kind: 'request', lane: r.billingLane ?? null });
  });
  const offQuota = ledger.onQuota((windows) => {
    for (const w of windows)
      step({ kind: 'window', window: w, pace: paceOf(w, windowSeconds(w.window, opts.names)), now: now() });
  });
  return () => {
    offRecord();
    offQuota();
  };
}

/** The headless form of a notice: one warn line whose message is the notice's stable text. */
export function logNotice(logger: { warn(obj: object, msg: string): void }, n: LaneNotice): void {
  logger.warn({ alert: n.kind, window: n.window, source: n.source, detail: n.title }, n.logLine);
}
