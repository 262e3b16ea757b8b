// What /health/detailed and the window show of the warm pool (docs/performance.md "Warm CLI pool"): its settings,
// counters, memory, and per learned key its model and a short hash of the whole spec, never the system prompt.

import { createHash } from 'node:crypto';

export interface CliPoolSnapshot {
  enabled: boolean;
  size: number;
  idleMs: number;
  /** Processes waiting right now. */
  warm: number;
  /** Per learned key: its model, a short hash of the whole argv, requests in the window, processes warm. */
  keys: Array<{ model: string; id: string; recentRequests: number; warm: number }>;
  hits: number;
  misses: number;
  started: number;
  expired: number;
  /** Ended because the login or settings changed. */
  replaced: number;
  /** Exited by themselves while waiting. */
  died: number;
  /** Not started because of the memory cap. */
  skippedForMemory: number;
  /** Not started because the cap on every CLI process (CLI_LIVE_MAX) was reached. */
  skippedForCap: number;
  /** Set while the pool pauses after repeated early exits. */
  pausedUntil?: number;
  /** Resident memory of the warm processes together and of the largest one seen, bytes (when measurable). */
  rssBytes?: number;
  maxSeenRssBytes?: number;
  maxRssBytes?: number;
}

export type PoolCounts = Pick<
  CliPoolSnapshot,
  'hits' | 'misses' | 'started' | 'expired' | 'replaced' | 'died' | 'skippedForMemory' | 'skippedForCap'
>;

export function poolSnapshot(
  warm: Array<{ key: string }>,
  counts: PoolCounts,
  o: {
    enabled: boolean;
    size: number;
    idleMs: number;
    recent: string[];
    modelOf: (key: string) => string;
    pausedUntil?: number;
    rss?: { total: number; maxSeen: number };
    maxRssBytes?: number;
  },
): CliPoolSnapshot {
  const freq = new Map<string, number>();
  for (const k of o.recent) freq.set(k, (freq.get(k) ?? 0) + 1);
  const warmOf = (key: string) => warm.filter((c) => c.key === key).length;
  const keys = [...new Set([...freq.keys(), ...warm.map((c) => c.key)])].map((key) => ({
    model: o.modelOf(key),
    id: createHash('sha256').update(key).digest('hex').slice(0, 8),
    recentRequests: freq.get(key) ?? 0,
    warm: warmOf(key),
  }));
  return {
    enabled: o.enabled,
    size: o.size,
    idleMs: o.idleMs,
    warm: warm.length,
    keys,
    ...counts,
    ...(o.pausedUntil === undefined ? {} : { pausedUntil: o.pausedUntil }),
    ...(o.rss === undefined ? {} : { rssBytes: o.rss.total, maxSeenRssBytes: o.rss.maxSeen }),
    ...(o.maxRssBytes === undefined ? {} : { maxRssBytes: o.maxRssBytes }),
  };
}
